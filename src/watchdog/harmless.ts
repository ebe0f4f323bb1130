/**
 * Which tool calls change nothing: the loop rule only alerts while an agent repeats such a call,
 * and pauses it when the repeated calls have side effects (decision 151, "The loop rule alerts on
 * harmless repeats and pauses on side effects, spend, or long runs"). A command line is harmless
 * when every simple command the shell would run is a known reader (`ls`, `cat`, `git status`, a
 * test run, …) and nothing is written by a redirection. Anything unknown counts as a side effect,
 * so a doubt pauses, as before.
 */
import { parseCommands, type SimpleCommand } from '../policy/index.js';
import { testRunOf, type CheckCommand } from './test-runs.js';

/** Tool kinds that only look: reading a file, searching, fetching a page. */
const LOOKING_KINDS = new Set(['read', 'search', 'web']);

/** Programs that only read, whatever their arguments (those that can write are judged below). */
const READERS = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'pwd',
  'echo',
  'printf',
  'true',
  'false',
  'test',
  '[',
  'which',
  'type',
  'whoami',
  'id',
  'date',
  'stat',
  'file',
  'tree',
  'du',
  'df',
  'env',
  'printenv',
  'uname',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'diff',
  'cmp',
  'jq',
  'sort',
  'uniq',
  'cut',
  'tr',
  'column',
  'nl',
  'sleep',
  'ps',
  'pgrep',
  'lsof',
  'node',
  'python',
  'python3',
]);

/** Subcommands of git that only read. */
const GIT_READERS = new Set([
  'status',
  'diff',
  'log',
  'show',
  'blame',
  'grep',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'describe',
  'shortlog',
  'cat-file',
  'merge-base',
]);

/** Judged command lines: a loop asks about the same line again and again, and parsing one costs ~1 ms. */
const judged = new Map<string, boolean>();
const JUDGED_MAX = 500;

/** Whether a call of this kind and input changes nothing outside the agent's own view. */
export function isHarmless(
  kind: string | undefined,
  input: string,
  cwd: string,
  check: CheckCommand,
): boolean {
  if (kind !== undefined && LOOKING_KINDS.has(kind)) return true;
  if (kind !== 'run') return false;
  const key = JSON.stringify([input, cwd, check ?? null]);
  let harmless = judged.get(key);
  if (harmless === undefined) {
    harmless = commandIsHarmless(input, cwd, check);
    if (judged.size >= JUDGED_MAX) judged.clear();
    judged.set(key, harmless);
  }
  return harmless;
}

function commandIsHarmless(input: string, cwd: string, check: CheckCommand): boolean {
  let commands: SimpleCommand[];
  try {
    commands = parseCommands(input, cwd, cwd);
  } catch {
    return false;
  }
  if (commands.length === 0) return false;
  // A test run writes caches and reports at most: polling one is looking, not doing.
  return commands.every((command) => readsOnly(command) || isTestRun(command, check, cwd));
}

function readsOnly(command: SimpleCommand): boolean {
  if (command.redirects.some((r) => r.op !== '<' && !isDevNull(r.target.text))) return false;
  const words = command.words.map((w) => w.text);
  if (command.words.some((w) => w.dynamic)) return false;
  const [program = '', first = ''] = words;
  const name = program.split('/').pop() ?? program;
  // `node`/`python` only to print a version or evaluate nothing written: `node -v`, `python3 --version`.
  if (name === 'node' || name === 'python' || name === 'python3')
    return words.length === 2 && (first === '-v' || first === '--version');
  // Checkers that only report unless told to write: `tsc --noEmit`, `eslint` without `--fix`.
  if (name === 'tsc') return words.includes('--noEmit');
  if (name === 'eslint' || name === 'prettier')
    return !words.some((w) => w === '--fix' || w === '--write' || w === '-w');
  if (name === 'npx' && (first === 'tsc' || first === 'eslint' || first === 'prettier'))
    return readsOnly({ ...command, words: command.words.slice(1) });
  if (name === 'find') return !words.some((w) => /^-(delete|exec|execdir|ok|okdir|fprint.*)$/.test(w));
  if (name === 'sed') return !words.some((w) => /^-[a-zA-Z]*i/.test(w) || w.startsWith('--in-place'));
  if (name === 'git') return GIT_READERS.has(first) || (first === 'branch' && words.length === 2);
  if (name === 'curl')
    return !words.some((w) => /^(-[XdTFo]|--(data.*|request|upload-file|form|output))$/.test(w));
  return READERS.has(name);
}

function isDevNull(target: string): boolean {
  return target === '/dev/null' || /^&?[12]$/.test(target);
}

function isTestRun(command: SimpleCommand, check: CheckCommand, cwd: string): boolean {
  const line = command.words.map((w) => w.text).join(' ');
  return line !== '' && testRunOf(line, check, cwd) !== undefined;
}
