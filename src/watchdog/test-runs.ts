/**
 * Test runs among an agent's shell calls, and their outcomes, for the "no change" trigger: a turn
 * that changes no file but changes what the tests say is progress. A command line is a test run
 * when one of the simple commands the shell would run (parsed by the gate's parser, src/policy)
 * is the repository's merge check or a common test runner. An outcome is the exit status and,
 * when the output shows them, the passed and failed counts: durations and paths vary from run to
 * run, so the counts — not the output's text — say whether the result changed.
 */
import { parseCommands, type SimpleCommand } from '../policy/index.js';
import { plainText } from '../shared/text.js';

/** The repository's merge check (`merge.check` in `.baton/config.json`): an argument list or one command line. */
export type CheckCommand = string | readonly string[] | undefined;

export interface TestOutcome {
  /** Equal for two runs that ended the same way. */
  digest: string;
  passed: boolean;
  /** `3 failed, 12 passed`, or `exit 2` when the output shows no counts. */
  detail: string;
}

/** Commands a test run may stand behind: `timeout 60 npm test`, `env CI=1 pytest`. */
const WRAPPERS = new Set(['env', 'time', 'nice', 'nohup', 'command', 'exec']);
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const JS_RUNNERS = new Set(['vitest', 'jest', 'mocha', 'ava', 'tap', 'karma', 'jasmine']);
const BARE_RUNNERS = new Set(['pytest', 'py.test', 'tox', 'nox', 'rspec', 'phpunit', 'ctest']);
/** Tools whose `test` subcommand runs the tests: `go test`, `cargo test`, `make test`. */
const TEST_SUBCOMMAND: Record<string, readonly string[]> = {
  go: ['test'],
  cargo: ['test', 'nextest'],
  make: ['test', 'check'],
  mvn: ['test', 'verify'],
  gradle: ['test', 'check'],
  gradlew: ['test', 'check'],
  dotnet: ['test'],
  deno: ['test'],
  mix: ['test'],
  swift: ['test'],
};

/**
 * Lines already read: an agent runs the same few command lines again and again (the test run it
 * polls above all), and the shell parser costs ~0.1–1 ms a line, which the watchdog paid on every
 * `run` call it ingested (decision 431). Bounded as harmless.ts's verdicts are.
 */
const read = new Map<string, string | null>();
const READ_MAX = 500;

/** The test run in a command line (its words, as a label), or undefined when it runs none. */
export function testRunOf(commandLine: string, check: CheckCommand, cwd: string): string | undefined {
  const key = JSON.stringify([commandLine, check ?? null, cwd]);
  let found = read.get(key);
  if (found === undefined) {
    found = findTestRun(commandLine, check, cwd) ?? null;
    if (read.size >= READ_MAX) read.clear();
    read.set(key, found);
  }
  return found ?? undefined;
}

function findTestRun(commandLine: string, check: CheckCommand, cwd: string): string | undefined {
  let commands: SimpleCommand[];
  try {
    commands = parseCommands(commandLine, cwd, cwd);
  } catch {
    return undefined;
  }
  const checkWords = check === undefined ? undefined : wordsOf(check, cwd);
  for (const command of commands) {
    const words = unwrap(command.words.map((w) => w.text));
    if (words.length === 0) continue;
    if ((checkWords !== undefined && startsWith(words, checkWords)) || isRunner(words))
      return words.join(' ');
  }
  return undefined;
}

/** How a test run ended, from its exit status and output. */
export function testOutcome(
  ok: boolean,
  exitCode: number | undefined,
  output: string | undefined,
): TestOutcome {
  const text = plainText(output ?? '');
  const failed = lastCount(text, /(\d+) (?:failed|failing|failures?)\b/g);
  const passed = lastCount(text, /(\d+) (?:passed|passing)\b/g);
  const counts = [
    failed === undefined ? [] : [`${failed} failed`],
    passed === undefined ? [] : [`${passed} passed`],
  ].flat();
  const exit = exitCode === undefined ? (ok ? 'ok' : 'failed') : `exit ${exitCode}`;
  return {
    digest: [exit, failed ?? '-', passed ?? '-'].join('|'),
    passed: ok,
    detail: counts.length > 0 ? counts.join(', ') : exit,
  };
}

function lastCount(text: string, pattern: RegExp): number | undefined {
  let last: number | undefined;
  for (const match of text.matchAll(pattern)) last = Number(match[1]);
  return last;
}

function wordsOf(check: string | readonly string[], cwd: string): string[] | undefined {
  if (typeof check !== 'string') return [...check];
  try {
    const [first] = parseCommands(check, cwd, cwd);
    return first === undefined ? undefined : first.words.map((w) => w.text);
  } catch {
    return undefined;
  }
}

function unwrap(words: string[]): string[] {
  let rest = words;
  for (;;) {
    const head = rest[0];
    if (head === 'timeout') rest = rest.slice(2);
    else if (head !== undefined && WRAPPERS.has(head)) rest = rest.slice(1);
    else return rest;
  }
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.every((word, i) => words[i] === word);
}

function isRunner(words: readonly string[]): boolean {
  const [head = '', first = '', second = ''] = words;
  const program = head.split('/').pop() ?? head;
  if (PACKAGE_MANAGERS.has(program)) {
    if (first === 'test' || first === 't') return true;
    if (first === 'run' || first === 'exec' || first === 'dlx')
      return isTestScript(second) || JS_RUNNERS.has(second);
    return program !== 'npm' && JS_RUNNERS.has(first);
  }
  if (program === 'npx' || program === 'bunx')
    return JS_RUNNERS.has(words.slice(1).find((w) => !w.startsWith('-')) ?? '');
  if (JS_RUNNERS.has(program) || BARE_RUNNERS.has(program)) return true;
  if (/^python[0-9.]*$/.test(program))
    return first === '-m' && (second === 'pytest' || second === 'unittest');
  if (program === 'bundle')
    return first === 'exec' && (second === 'rspec' || (second === 'rake' && words[3] === 'test'));
  return TEST_SUBCOMMAND[program]?.includes(first) ?? false;
}

/** `test`, `test:unit`, `test-e2e`: a package script that runs tests. */
function isTestScript(name: string): boolean {
  return /^test([:_-].*)?$/.test(name);
}
