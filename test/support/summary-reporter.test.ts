/**
 * The closing line CI reads, checked by running vitest itself on small fixture files: a suite
 * that failed to start, a failed cleanup or an unhandled error must not read as a clean run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';

const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const REPORTER = fileURLToPath(new URL('./summary-reporter.ts', import.meta.url));

/** Fixture files, written as plain JavaScript with vitest's globals so they need no imports. */
const FIXTURES: Record<string, string> = {
  'before-all.test.js': `
    describe('a suite whose setup throws', () => {
      beforeAll(() => { throw new Error('Chromium is not installed'); });
      test('one', () => {});
      test('two', () => {});
    });
    test('a test outside that suite', () => {});`,
  'after-all.test.js': `
    afterAll(() => { throw new Error('cleanup failed'); });
    test('passes', () => {});`,
  'unhandled.test.js': `
    test('passes but leaves a rejection nobody awaits', () => { void Promise.reject(new Error('nobody waited')); });`,
  'broken-import.test.js': `
    import './no-such-module.js';
    test('never collected', () => {});`,
  'passing.test.js': `
    test('passes', () => {});
    test.skip('skipped on purpose', () => {});
    test.todo('written later');`,
};

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-reporter-')));
  for (const [name, text] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), `${text.trim()}\n`);
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { globals: true, reporters: [${JSON.stringify(REPORTER)}], maxWorkers: 2 } };\n`,
  );
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs vitest on the given fixture files; resolves when it exits. */
async function runVitest(files: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Without the parent's VITEST* variables the child behaves as a top-level run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const child = spawn(
    process.execPath,
    [VITEST, 'run', '--config', 'vitest.config.mjs', '--root', dir, ...files],
    {
      cwd: dir,
      env: { ...env, NO_COLOR: '1', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { code, stdout, stderr };
}

const closingLine = (stdout: string): string | undefined =>
  stdout.match(/^\d+ passed, \d+ failed, \d+ skipped$/m)?.[0];

test('a suite that failed to start, a failed afterAll, a failed import and an unhandled error all count as failures', async () => {
  const run = await runVitest(Object.keys(FIXTURES));
  // before-all: 2 failed (their beforeAll threw), 1 passed; after-all: 1 passed, 1 failed;
  // unhandled: 1 passed, plus 1 failed for the error; broken-import: 1 failed; passing: 1 passed, 2 skipped.
  expect(closingLine(run.stdout), run.stdout + run.stderr).toBe('4 passed, 5 failed, 2 skipped');
  expect(run.code).toBe(1);
});

test('a clean run counts only the tests that asked to be skipped as skipped', async () => {
  const run = await runVitest(['passing.test.js']);
  expect(closingLine(run.stdout), run.stdout + run.stderr).toBe('1 passed, 0 failed, 2 skipped');
  expect(run.code).toBe(0);
});
