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
 */
import { basename } from 'node:path';
import { makeRecipes } from './makefile.js';
import { placeOf, type ScriptFile } from './paths.js';
import { OPAQUE_SCRIPT } from './opaque.js';
import { inlineScript } from './inline.js';
import { joinPath, type Word } from './shell.js';
import type { Finding, RuleContext } from './types.js';
import { AWKS, awkProgram } from './awk.js';
import { commandsOf, read, type Command } from './unwrap.js';
import { preloadsOf } from './preloads.js';
import { codeRunningSetting } from './package-settings.js';

export type Language = 'shell' | 'python' | 'node' | 'ruby' | 'perl' | 'php';
/** A file run as a program (`./nuke.sh`): its `#!` line says what reads it. */
type Direct = 'program';

/** A script file a command runs, and what it is read as. */
interface Run {
  path: string;
  language: Language | Direct | 'make' | 'package' | 'awk' | 'envfile';
  /** For make: the goals; for a package script: the script's name; else the script's arguments. */
  names: string[];
  /** The words after `--` a package script gets. */
  extra: string[];
  cwd: string;
  /**
   * The files the command may run, in the order the program looks for them (`path` when none is
   * there): `node nuke` runs nuke.js when there is no `nuke`, `make` reads GNUmakefile, then
   * makefile, then Makefile (decision 177).
   */
  candidates?: string[];
  /** A file loaded first (`NODE_OPTIONS=--require ./x.js`), named so in the log (decision 330). */
  label?: string;
  /** A module looked for along a search path: none there means an installed one, nothing of the session's. */
  searched?: boolean;
}

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

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'source', '.']);
const INTERPRETERS: Record<string, Language> = {
  python: 'python',
  node: 'node',
  nodejs: 'node',
  bun: 'node',
  deno: 'node',
  tsx: 'node',
  'ts-node': 'node',
  ruby: 'ruby',
  perl: 'perl',
  php: 'php',
};
/** What Node tries after the name as given (a missing `nuke` is `nuke.js`, then `nuke/index.js`). */
const NODE_EXTENSIONS = ['.js', '.cjs', '.mjs', '.ts', '/index.js'];
/** Options of interpreters that take a value (`node -r dotenv/config x.js`, `python -W ignore x.py`). */
const VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '-W',
  '-X',
  '-o',
  '+o',
  '-O',
  '+O',
  '-I',
]);
/** A switch that makes the next argument an inline script (inline.ts reads it), not a file. */
const INLINE_SWITCH = /(^|\s)(-[a-zA-Z]*[ceE]|--eval|--print|-p)(\s|$)/;
const MAKES = new Set(['make', 'gmake']);
const MAKE_VALUE = new Set([
  '-C',
  '-f',
  '--file',
  '--makefile',
  '--directory',
  '-I',
  '-l',
  '-o',
  '-W',
  '--include-dir',
]);
/** Package managers, the words that run a script by name, and what a bare name means. */
const RUN_WORDS = new Set(['run', 'run-script', 'rum', 'urn']);
const NPM_SHORT: Record<string, string> = {
  test: 'test',
  t: 'test',
  tst: 'test',
  start: 'start',
  stop: 'stop',
  restart: 'restart',
};
const INSTALL_WORDS = new Set(['install', 'i', 'ci', 'add']);
const LIFECYCLE = ['preinstall', 'install', 'postinstall', 'prepare'];

/**
 * Every file a command runs: the files it loads first (preloads.ts), then its script. A preload
 * the gate cannot know is a reason to ask.
 */
function runsOf(command: Command, context: RuleContext): { runs: Run[]; unsure: string[] } {
  const preloads = preloadsOf(command);
  const runs: Run[] = preloads.files.map((file) => ({
    path: file.path,
    language: file.language,
    names: [],
    extra: [],
    cwd: command.cwd ?? context.cwd,
    candidates: file.candidates,
    label: file.label,
    searched:
      file.searched === true ||
      file.language === 'perl' ||
      (file.language === 'ruby' && file.candidates.length > 2),
  }));
  const script = runOf(command, context);
  return { runs: script === undefined ? runs : [...runs, script], unsure: preloads.unsure };
}

/** The script file a command runs, if any. */
function runOf(command: Command, context: RuleContext): Run | undefined {
  const cwd = command.cwd;
  if (cwd === undefined) return undefined;
  const name = command.name;
  // `python -m tool` (read as the command `tool`): tool.py or tool/__main__.py, from the folder it starts in.
  if (/^python[0-9.]* -m$/.test(command.via.at(-1) ?? '') && /^[\w.]+$/.test(name)) {
    const module = joinPath(cwd, name.replaceAll('.', '/'));
    return {
      path: `${module}.py`,
      language: 'python',
      names: command.args.map((a) => a.text),
      extra: [],
      cwd,
      candidates: [`${module}.py`, `${module}/__main__.py`],
    };
  }
  const interpreter = INTERPRETERS[name.replace(/[0-9.]+$/, '')];
  if (SHELLS.has(name) || interpreter !== undefined) {
    if (
      interpreter !== undefined &&
      (inlineScript(command) !== undefined || INLINE_SWITCH.test(command.args.map((a) => a.text).join(' ')))
    )
      return undefined;
    if (SHELLS.has(name) && command.args.some((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text))) return undefined;
    let args = command.args;
    if (name === 'deno' || (name === 'bun' && args[0]?.text === 'run')) args = args.slice(1);
    const at = operandIndex(args);
    const file = at < 0 ? undefined : args[at];
    if (file === undefined || file.dynamic || file.text === '-' || file.text.startsWith('/dev/'))
      return undefined;
    if (name === 'bun' && !/[./]/.test(file.text)) return packageRun(command, context, 'bun');
    const path = joinPath(cwd, file.text);
    return {
      path,
      language: interpreter ?? 'shell',
      names: args.slice(at + 1).map((a) => a.text),
      extra: [],
      cwd,
      candidates:
        interpreter === 'node' ? [path, ...NODE_EXTENSIONS.map((extension) => `${path}${extension}`)] : [],
    };
  }
  if (command.program !== undefined && !command.program.includes('\u0000'))
    return { path: joinPath(cwd, command.program), language: 'program', names: [], extra: [], cwd };
  if (MAKES.has(name)) return makeRun(command.args, cwd);
  if (AWKS.has(name)) return awkRun(command.args, cwd);
  if (name === 'npm' || name === 'pnpm' || name === 'yarn') return packageRun(command, context, name);
  return undefined;
}

function operandIndex(args: Word[]): number {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '--') return i + 1 < args.length ? i + 1 : -1;
    if (VALUE_OPTIONS.has(text)) i++;
    else if (!text.startsWith('-') && !text.startsWith('+')) return i;
  }
  return -1;
}

function makeRun(args: Word[], cwd: string): Run | undefined {
  let dir = cwd;
  let file: string | undefined;
  const goals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as Word;
    const text = word.text;
    const value = (): string | undefined => args[++i]?.text;
    if (text === '-C' || text === '--directory') dir = joinPath(dir, value() ?? '.');
    else if (text.startsWith('-C') && text.length > 2) dir = joinPath(dir, text.slice(2));
    else if (text === '-f' || text === '--file' || text === '--makefile') file = value();
    else if (MAKE_VALUE.has(text)) i++;
    else if (!text.startsWith('-') && !text.includes('=')) goals.push(text);
  }
  return {
    path: file === undefined ? joinPath(dir, 'Makefile') : joinPath(dir, file),
    // GNU make reads the first of these it finds.
    candidates:
      file === undefined ? ['GNUmakefile', 'makefile', 'Makefile'].map((name) => joinPath(dir, name)) : [],
    language: 'make',
    names: goals,
    extra: [],
    cwd: dir,
  };
}

/** `awk -f prog.awk`: the program file, read for the commands it runs (decision 177). */
function awkRun(args: Word[], cwd: string): Run | undefined {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '--') break;
    const file =
      text === '-f' || text === '--file'
        ? args[i + 1]
        : /^-f./.test(text)
          ? { ...(args[i] as Word), text: text.slice(2) }
          : text.startsWith('--file=')
            ? { ...(args[i] as Word), text: text.slice('--file='.length) }
            : undefined;
    if (file === undefined) continue;
    // A program only the run knows, or stdin: as for `sh "$X"`, nothing to read.
    if (file.dynamic || file.text === '-' || file.text.startsWith('/dev/')) return undefined;
    return { path: joinPath(cwd, file.text), language: 'awk', names: [], extra: [], cwd };
  }
  return undefined;
}

function packageRun(command: Command, context: RuleContext, manager: string): Run | undefined {
  let dir = command.cwd ?? context.cwd;
  const words: string[] = [];
  const args = command.args;
  let extra: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '--') {
      extra = args.slice(i + 1).map((a) => a.text);
      break;
    }
    if (text === '--prefix' || text === '-C' || text === '--dir' || text === '--cwd')
      dir = joinPath(dir, args[++i]?.text ?? '.');
    else if (!text.startsWith('-')) words.push(text);
  }
  const [first, second] = words;
  if (first === undefined) return manager === 'yarn' ? lifecycle(dir) : undefined;
  let names: string[];
  if (RUN_WORDS.has(first)) names = second === undefined ? [] : [second];
  else if (manager === 'npm' && NPM_SHORT[first] !== undefined) names = [NPM_SHORT[first] ?? first];
  else if (INSTALL_WORDS.has(first) && words.length === 1) return lifecycle(dir);
  // `yarn build`, `pnpm lint`, `bun x`: a script of that name, when package.json has one.
  else if (manager !== 'npm') names = [first];
  else return undefined;
  if (names.length === 0) return undefined;
  const name = names[0] ?? '';
  return {
    path: joinPath(dir, 'package.json'),
    language: 'package',
    names: [`pre${name}`, name, `post${name}`],
    extra,
    cwd: dir,
  };
}

function lifecycle(dir: string): Run {
  return { path: joinPath(dir, 'package.json'), language: 'package', names: LIFECYCLE, extra: [], cwd: dir };
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
