/**
 * Which file a command runs, and as what (decision 158, "Scripts an agent runs are read"): the
 * script of `sh x.sh`, `./x.sh`, `source env.sh`, `python3 x.py`, `node x` (and the names Node
 * tries after it), a Makefile's goals, a package.json script (and the install lifecycle scripts),
 * `awk -f prog.awk`, and the files an interpreter loads first (preloads.ts). scripts.ts reads each
 * and judges what it runs.
 */
import { inlineScript } from './inline.js';
import { joinPath, type Word } from './shell.js';
import type { RuleContext } from './types.js';
import { AWKS } from './awk.js';
import type { Command } from './unwrap.js';
import { preloadsOf } from './preloads.js';

export type Language = 'shell' | 'python' | 'node' | 'ruby' | 'perl' | 'php';
/** A file run as a program (`./nuke.sh`): its `#!` line says what reads it. */
type Direct = 'program';

/** A script file a command runs, and what it is read as. */
export interface Run {
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

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'source', '.']);
export const INTERPRETERS: Record<string, Language> = {
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
export function runsOf(command: Command, context: RuleContext): { runs: Run[]; unsure: string[] } {
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
