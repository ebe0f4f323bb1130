import { describe, expect, it } from 'vitest';
import { testOutcome, testRunOf } from './test-runs.js';

describe('finding a test run in a command line', () => {
  it.each([
    ['npm test', 'npm test'],
    ['npm run test:unit -- --bail', 'npm run test:unit -- --bail'],
    ['pnpm vitest run src', 'pnpm vitest run src'],
    ['yarn test', 'yarn test'],
    ['npx --yes vitest run a.test.ts', 'npx --yes vitest run a.test.ts'],
    ['CI=1 npx jest', 'npx jest'],
    ['cd pkg && timeout 60 pytest -q tests/', 'pytest -q tests/'],
    ['python3 -m pytest', 'python3 -m pytest'],
    ['go test ./...', 'go test ./...'],
    ['cargo test 2>&1 | tail -20', 'cargo test'],
    ['make test', 'make test'],
    ['./node_modules/.bin/vitest run', './node_modules/.bin/vitest run'],
  ])('%s is a test run', (line, label) => {
    expect(testRunOf(line, undefined, '/w')).toBe(label);
  });

  it.each([
    ['npm install'],
    ['npm run build'],
    ['echo npm test'],
    ['git commit -m "npm test"'],
    ['make'],
    ['go build ./...'],
    ['npx prettier --write .'],
    ['if [ -f x'],
  ])('%s is not', (line) => {
    expect(testRunOf(line, undefined, '/w')).toBeUndefined();
  });

  it('takes the merge check, given as a command line or as words', () => {
    expect(testRunOf('./check.sh all', './check.sh all', '/w')).toBe('./check.sh all');
    expect(testRunOf("./check.sh 'all'", ['./check.sh', 'all'], '/w')).toBe('./check.sh all');
    expect(testRunOf('./check.sh', ['./check.sh', 'all'], '/w')).toBeUndefined();
  });
  it('answers a line read before by what it is read with: the same line, another check or folder', () => {
    // Lines are kept once read (decision 431): the check and the folder are part of what was read.
    expect(testRunOf('./ci.sh fast', undefined, '/w')).toBeUndefined();
    expect(testRunOf('./ci.sh fast', './ci.sh', '/w')).toBe('./ci.sh fast');
    expect(testRunOf('./ci.sh fast', undefined, '/w')).toBeUndefined();
    expect(testRunOf('./ci.sh fast', ['./ci.sh', 'fast'], '/w')).toBe('./ci.sh fast');
    for (let i = 0; i < 600; i++) testRunOf(`echo ${i}`, undefined, '/w');
    expect(testRunOf('./ci.sh fast', './ci.sh', '/w')).toBe('./ci.sh fast');
  });
});

describe('a test run’s outcome', () => {
  it('reads the last passed and failed counts (vitest, jest, pytest, cargo, mocha), colours aside', () => {
    expect(
      testOutcome(
        false,
        1,
        ' Test Files  1 failed (1)\n      Tests  \u001b[31m3 failed\u001b[39m | 12 passed (15)\n',
      ).detail,
    ).toBe('3 failed, 12 passed');
    expect(testOutcome(false, 1, 'Tests:       3 failed, 12 passed, 15 total').detail).toBe(
      '3 failed, 12 passed',
    );
    expect(testOutcome(false, 1, '==== 3 failed, 12 passed in 0.52s ====').detail).toBe(
      '3 failed, 12 passed',
    );
    expect(testOutcome(false, 101, 'test result: FAILED. 12 passed; 3 failed; 0 ignored').detail).toBe(
      '3 failed, 12 passed',
    );
    expect(testOutcome(true, 0, '  15 passing (20ms)').detail).toBe('15 passed');
  });

  it('is the same for two runs that differ only in timings, and different when a count or the exit code changes', () => {
    const a = testOutcome(false, 1, '3 failed, 12 passed in 0.52s');
    expect(testOutcome(false, 1, '3 failed, 12 passed in 0.61s').digest).toBe(a.digest);
    expect(testOutcome(false, 1, '2 failed, 13 passed in 0.61s').digest).not.toBe(a.digest);
    expect(testOutcome(false, 2, '3 failed, 12 passed').digest).not.toBe(a.digest);
    expect(testOutcome(false, 2, 'no counts here')).toMatchObject({ detail: 'exit 2', passed: false });
  });
});
