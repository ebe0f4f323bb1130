/**
 * Red→green proof (decision 292, "A new test that passes on the base proves nothing"): for the
 * test files a session added or changed, Baton runs each one against the base — the session's
 * test files laid on the base's tree, its other files not — and on the session's own tree. A test
 * that fails on the base and passes with the change exercises it; one that already passes on the
 * base is flagged: "regression test passes without the change". Each run is the repository's
 * `verify.tests` command for one file, in a scratch worktree, confined like the turn's check.
 */
import { rmSync } from 'node:fs';
import { git, gitOut } from '../worktrees/index.js';
import type { RunCheck } from './evidence.js';

/** A path is a test file by the conventions of the common runners (the corpus is in red-green.test.ts). */
const TEST_FILE = [
  /(^|\/)(test|tests|__tests__|spec|specs)\//,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /(^|\/)test_[^/]*\.py$/,
  /_test\.(py|go)$/,
  /_spec\.rb$/,
  /(^|\/)[A-Z]\w*Tests?\.(java|kt|cs)$/,
];
/** Files beside tests that are not tests themselves (fixtures, helpers, snapshots, data). */
const NOT_A_TEST = [
  /(^|\/)(fixtures?|__snapshots__|__mocks__|support|helpers?|data)\//,
  /\.(snap|json|md|txt)$/,
];

export function isTestFile(path: string): boolean {
  return TEST_FILE.some((re) => re.test(path)) && !NOT_A_TEST.some((re) => re.test(path));
}

/** Most test files run per session and turn: each costs two runs of the command. */
export const MAX_TEST_FILES = 20;

export type RunOutcome = 'passed' | 'failed' | 'timed_out';

export interface RedGreenTest {
  file: string;
  /** How the test did on the base with only the session's test files applied. */
  base: RunOutcome;
  /** How it did on the session's work. */
  branch: RunOutcome;
  /** Fails on the base and passes with the change: it exercises the change. */
  proves: boolean;
  /** Passes on the base already: "regression test passes without the change". */
  vacuous: boolean;
  baseTail: string;
}

export interface RedGreen {
  sessionId: string;
  name: string;
  turn: number;
  /** The session's tree the tests came from, and the base they were laid on. */
  tree: string;
  base: string;
  command: string;
  tests: RedGreenTest[];
  /** Test files beyond MAX_TEST_FILES, not run. */
  skipped: number;
  durationMs: number;
  at: string;
}

/** The command for one file: `{file}` replaced by it (quoted for a shell line), or the file appended. */
export function commandFor(template: string | readonly string[], file: string): string | string[] {
  if (typeof template !== 'string')
    return template.some((a) => a.includes('{file}'))
      ? template.map((a) => a.replaceAll('{file}', file))
      : [...template, file];
  const quoted = `'${file.replaceAll("'", `'\\''`)}'`;
  return template.includes('{file}') ? template.replaceAll('{file}', quoted) : `${template} ${quoted}`;
}

/** The test files the session's tree adds or changes against its base. */
export async function changedTests(root: string, base: string, tree: string): Promise<string[]> {
  const out = await gitOut(root, ['diff', '--name-only', '--diff-filter=AM', '-z', base, tree]);
  return out
    .split('\0')
    .filter((p) => p !== '' && isTestFile(p))
    .sort();
}

export interface RedGreenInput {
  root: string;
  base: string;
  tree: string;
  files: string[];
  scratch: string;
  template: string | readonly string[];
  timeoutSeconds: number;
  /** Runs one file's command in a folder (the check's runner, confined to the session's sandbox there). */
  run(command: string | readonly string[], cwd: string, timeoutSeconds: number): ReturnType<RunCheck>;
}

/** Runs each test file on the base with the session's tests applied, then on the session's tree. */
export async function runRedGreen(
  input: RedGreenInput,
): Promise<{ tests: RedGreenTest[]; skipped: number; durationMs: number }> {
  const started = performance.now();
  const files = input.files.slice(0, MAX_TEST_FILES);
  rmSync(input.scratch, { recursive: true, force: true });
  await git(input.root, ['worktree', 'add', '--detach', '--force', input.scratch, input.base]);
  try {
    // The session's test files on the base's tree, its sources not.
    // Literal: a file the agent named `:(exclude)x.test.js` or `*.test.js` is that one file, not a pattern.
    await git(input.scratch, ['--literal-pathspecs', 'checkout', input.tree, '--', ...files]);
    const onBase: { outcome: RunOutcome; tail: string }[] = [];
    for (const file of files) {
      const result = await input.run(commandFor(input.template, file), input.scratch, input.timeoutSeconds);
      onBase.push({ outcome: result.outcome, tail: result.outputTail });
    }
    // The session's whole work, exactly its tree (files it deleted gone too).
    await git(input.scratch, ['read-tree', '-u', '--reset', input.tree]);
    await git(input.scratch, ['clean', '-fdxq']);
    const tests: RedGreenTest[] = [];
    for (const [index, file] of files.entries()) {
      const result = await input.run(commandFor(input.template, file), input.scratch, input.timeoutSeconds);
      const base = onBase[index]!;
      tests.push({
        file,
        base: base.outcome,
        branch: result.outcome,
        proves: base.outcome !== 'passed' && result.outcome === 'passed',
        vacuous: base.outcome === 'passed',
        baseTail: lastLines(base.tail, 12),
      });
    }
    return {
      tests,
      skipped: input.files.length - files.length,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await git(input.root, ['worktree', 'remove', '--force', input.scratch], { okExitCodes: [0, 128] }).catch(
      () => undefined,
    );
    rmSync(input.scratch, { recursive: true, force: true });
  }
}

function lastLines(text: string, n: number): string {
  return text.split('\n').slice(-n).join('\n');
}
