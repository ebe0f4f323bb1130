/**
 * Scripts run from a file: `sh nuke.sh`, `./nuke.sh`, `source env.sh`, `python3 nuke.py`,
 * `node x.js`, `make nuke`, `npm run x`. An agent that is refused `rm -rf /opt/x` can write it
 * into a file and run the file, so the file is read and judged like an inline script: shell
 * parsed, Python/Node/Ruby/Perl through the inline detectors, Makefile recipes and package.json
 * scripts as the shell lines they are (decision 158, "Scripts an agent runs are read").
 *
 * Which files: those in the worktree or a temporary folder — the places an agent writes without
 * asking — unless the repository holds the file unchanged since the session began (the user's
 * own script, Disk.script says `trusted`). A script the same call writes first is judged by what
 * it writes when the command says (`cat > x.sh <<EOF`), else asked about, and so is a script
 * that cannot be read, is too large, or runs on an interpreter the gate cannot read.
 *
 * Which file a command runs, and as what, is script-runs.ts; this module reads it and judges.
 */
import { basename } from 'node:path';
import { makeRecipes } from './makefile.js';
import { placeOf, type ScriptFile } from './paths.js';
import { OPAQUE_SCRIPT } from './opaque.js';
import { joinPath, type Word } from './shell.js';
import type { Finding, RuleContext } from './types.js';
import { awkProgram } from './awk.js';
import { commandsOf, read, type Command } from './unwrap.js';
import { codeRunningSetting } from './package-settings.js';
import { INTERPRETERS, runsOf, SHELLS, type Language, type Run } from './script-runs.js';

/** Files a command wrote earlier in the same call (their text when the command says it), and how many commands ran before. */
export interface Written {
  files: Map<string, string | undefined>;
  earlier: number;
}

/** A script's commands as the rules see them, or why it cannot be judged. */
export interface ScriptCommands {
  /** Each with the folder it runs in, to judge in turn (inline scripts and scripts it runs too). */
  commands: Command[];
  findings: Finding[];
}

/** The commands of the script a command runs (none when it runs none, or one the gate trusts). */
export function scriptCommands(
  command: Command,
  context: RuleContext,
  written: Written,
  depth: number,
  /**
   * Read a script unchanged since the base whole, not only for the scripts it runs: what throws
   * away the session's uncommitted work does so whoever wrote the script (decision 204).
   */
  options: { trustedWhole?: boolean } = {},
): ScriptCommands {
  const { runs, unsure } = runsOf(command, context);
  const out: ScriptCommands = {
    commands: [],
    findings: unsure.map((why) => ({ rule: OPAQUE_SCRIPT, why, uncertain: true })),
  };
  for (const found of runs) {
    const one = runCommands(command, found, context, written, depth, options);
    out.commands.push(...one.commands);
    out.findings.push(...one.findings);
  }
  return out;
}

/** The commands of one file a command runs, or why it asks. */
function runCommands(
  command: Command,
  found: Run,
  context: RuleContext,
  written: Written,
  depth: number,
  options: { trustedWhole?: boolean },
): ScriptCommands {
  const run = { ...found, path: firstPresent(found, context, written) };
  const ask = (why: string): ScriptCommands => ({
    commands: [],
    findings: [{ rule: OPAQUE_SCRIPT, why, uncertain: true }],
  });
  if (run.language === 'package') {
    const setting = codeRunningSetting(command, run.cwd, context);
    if (setting !== undefined) return ask(setting);
  }
  const label = `${command.name === ':' ? '' : `${command.name} `}${run.path}`;
  let file: ScriptFile;
  if (written.files.has(run.path)) {
    const text = written.files.get(run.path);
    if (text === undefined) return ask(`runs ${run.path}, which the same command writes first`);
    file = { text };
  } else {
    // Only where an agent writes without asking: anywhere else the file is an installed program.
    const where = placeOf(run.path, false, context);
    if (where !== 'inside' && where !== 'writable' && where !== 'unknown')
      return { commands: [], findings: [] };
    const disk = context.disk;
    if (disk === undefined) return { commands: [], findings: [] };
    file = disk.script(run.path);
  }
  if ('trusted' in file)
    return trustedCalls(run, file.text, context, via(command, run), depth, options.trustedWhole === true);
  if ('binary' in file) return { commands: [], findings: [] };
  if ('unreadable' in file) {
    // No such file and nothing before it in the call that could write one: nothing runs. After
    // another command (`python3 -c "open('x.sh','w')…" && sh x.sh`) it may exist by then: ask.
    if (
      file.unreadable === 'missing' &&
      (written.earlier === 0 ||
        run.language === 'make' ||
        run.language === 'package' ||
        run.searched === true)
    )
      return { commands: [], findings: [] };
    return ask(`runs ${run.path}, which the gate cannot read (${file.unreadable})`);
  }
  if (depth > MAX_SCRIPT_DEPTH) return ask(`${label} runs scripts nested too deeply to read`);
  try {
    return { commands: readScript(run, file.text, context.home, via(command, run), depth), findings: [] };
  } catch (error) {
    return ask(`${run.path} cannot be read (${(error as Error).message})`);
  }
}

const MAX_SCRIPT_DEPTH = 4;

function via(command: Command, run: Run): string[] {
  if (run.label !== undefined) return [...command.via, run.label];
  return [...command.via, `${command.name === ':' ? run.path : command.name} ${basename(run.path)}`];
}

/**
 * A script the repository holds unchanged is the user's: what it does itself is not judged. But
 * the scripts it runs may be ones the agent edited (`npm test` running an unchanged
 * `scripts/test.sh` that runs the agent's `scripts/helper.sh`), so its commands that run a
 * script are handed back to be judged, and so on down to the depth the gate reads any script to.
 * A trusted script the gate cannot read (or too deep) stays trusted, as before.
 */
function trustedCalls(
  run: Run,
  text: string | undefined,
  context: RuleContext,
  path: string[],
  depth: number,
  whole: boolean,
): ScriptCommands {
  if (text === undefined || depth > MAX_SCRIPT_DEPTH) return { commands: [], findings: [] };
  let commands: Command[];
  try {
    commands = readScript(run, text, context.home, path, depth);
  } catch {
    return { commands: [], findings: [] };
  }
  return {
    commands: whole
      ? commands
      : commands.filter((inner) => {
          const runs = runsOf(inner, context);
          return runs.runs.length > 0 || runs.unsure.length > 0;
        }),
    findings: [],
  };
}

/** The file the program would run: the first of its candidates written earlier in the call or on the disk. */
function firstPresent(run: Run, context: RuleContext, written: Written): string {
  for (const path of run.candidates ?? []) {
    if (written.files.has(path)) return path;
    const file = context.disk?.script(path);
    if (file !== undefined && !('unreadable' in file && ['missing', 'not a file'].includes(file.unreadable)))
      return path;
  }
  return run.path;
}

function readScript(run: Run, text: string, home: string, via: string[], depth: number): Command[] {
  switch (run.language) {
    case 'make': {
      const recipes = makeRecipes(text, run.names);
      if (recipes.unsure !== undefined) throw new Error(recipes.unsure);
      return recipes.lines.flatMap((line) => commandsOf(line, run.cwd, home, depth, via));
    }
    case 'package': {
      const scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
      return run.names.flatMap((name) => {
        const body = scripts[name];
        if (typeof body !== 'string') return [];
        const line = [body, ...run.extra.map(quote)].join(' ');
        return commandsOf(line, run.cwd, home, depth, [...via.slice(0, -1), `${via.at(-1) ?? ''} ${name}`]);
      });
    }
    case 'shell':
      return commandsOf(text, run.cwd, home, depth, via);
    case 'envfile':
      return envFileCommands(text, run, via);
    case 'awk':
      return awkProgram(text, false, 'awk', home, depth, via, run.cwd, read);
    case 'program': {
      const language = shebang(text);
      if (language === undefined)
        throw new Error(`it runs on ${firstLine(text)}, which the gate cannot read`);
      if (language !== 'shell') return [scriptAsInline(language, text, run, via)];
      return commandsOf(text, run.cwd, home, depth, via);
    }
    default:
      return [scriptAsInline(run.language, text, run, via)];
  }
}

/**
 * A file `node --env-file` reads: its `NODE_OPTIONS` becomes the options of the Node it starts,
 * so the files they load are judged as that Node's preloads (decision 344). Dotenv's syntax:
 * `NAME=value`, an optional `export `, the value optionally quoted, `#` comments.
 */
function envFileCommands(text: string, run: Run, via: string[]): Command[] {
  let options: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?NODE_OPTIONS\s*=\s*(.*)$/.exec(line);
    if (match === null) continue;
    let value = (match[1] ?? '').trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === '`') && value.lastIndexOf(quote) > 0)
      value = value.slice(1, value.lastIndexOf(quote));
    else value = value.replace(/\s+#.*$/, '');
    options = value;
  }
  if (options === undefined) return [];
  return [
    {
      name: 'node',
      args: [],
      redirects: [],
      stdinUnknown: false,
      cwd: run.cwd,
      moreArgs: false,
      via,
      env: ['NODE_OPTIONS'],
      values: { NODE_OPTIONS: { text: options, dynamic: false, glob: false } },
    },
  ];
}

/** The script as an interpreter fed it on stdin: the inline detectors read it from there. */
function scriptAsInline(language: Language, text: string, run: Run, via: string[]): Command {
  return {
    name: language,
    args: [],
    redirects: [],
    stdin: text,
    stdinUnknown: false,
    cwd: run.cwd,
    moreArgs: false,
    via,
  };
}

/** The language a file's `#!` names; shell when it has none (the shell runs such a file itself). */
export function shebang(text: string): Language | undefined {
  if (!text.startsWith('#!')) return 'shell';
  const words = firstLine(text).slice(2).trim().split(/\s+/);
  let program = basename(words[0] ?? '');
  if (program === 'env')
    program = basename(words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) ?? '');
  if (SHELLS.has(program)) return 'shell';
  return INTERPRETERS[program.replace(/[0-9.]+$/, '')];
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** What a command writes for a later one to run: `cat > x.sh <<EOF`, `echo … > x.sh` (text known), else unknown. */
export function noteWrites(command: Command, targets: Word[], written: Written): void {
  const cwd = command.cwd;
  // Modes, owners and times: the text stays what it was.
  if (['chmod', 'chown', 'chgrp', 'touch'].includes(command.name)) return;
  const knownText =
    command.name === 'cat' && command.args.length === 0
      ? command.stdin
      : command.name === 'echo'
        ? `${command.args.map((a) => a.text).join(' ')}\n`
        : command.name === 'tee'
          ? command.stdin
          : undefined;
  for (const target of targets) {
    if (target.dynamic || cwd === undefined) continue;
    const path = joinPath(cwd, target.text);
    const appends = command.redirects.some((r) => r.target === target && r.op.includes('>>'));
    const previous = written.files.get(path);
    written.files.set(
      path,
      knownText === undefined || command.args.some((a) => a.dynamic)
        ? undefined
        : appends && previous !== undefined
          ? previous + knownText
          : appends
            ? undefined
            : knownText,
    );
  }
}
