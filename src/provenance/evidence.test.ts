import { describe, expect, it } from 'vitest';
import { claimsCheck, readTestCounts } from './evidence.js';

describe('reading a test runner’s summary', () => {
  it.each([
    [
      'vitest',
      ' Test Files  1 failed | 3 passed (4)\n      Tests  2 failed | 40 passed (42)',
      { ran: 42, passed: 40, failed: 2 },
    ],
    ['jest', 'Tests:       1 failed, 3 passed, 4 total\nTime: 1 s', { ran: 4, passed: 3, failed: 1 }],
    ['node --test', '# tests 5\n# pass 4\n# fail 1', { ran: 5, passed: 4, failed: 1 }],
    ['cargo', 'test result: ok. 7 passed; 0 failed; 0 ignored', { ran: 7, passed: 7, failed: 0 }],
    ['pytest', '===== 1 failed, 9 passed in 0.52s =====', { ran: 10, passed: 9, failed: 1 }],
    ['mocha', '  12 passing (30ms)\n  2 failing', { ran: 14, passed: 12, failed: 2 }],
  ])('counts %s', (_runner, output, counts) => {
    expect(readTestCounts(output)).toEqual(counts);
  });

  it.each([
    ['a build log', 'compiled 12 files in 3 s'],
    ['nothing', ''],
    ['a lint run', '0 problems'],
  ])('counts nothing in %s', (_what, output) => {
    expect(readTestCounts(output)).toBeNull();
  });
});

describe('an agent’s command that claims to check its work', () => {
  it.each([
    'npm test',
    'npx vitest run src/a.test.ts',
    'pytest -q',
    'cargo test',
    'go test ./...',
    'npx tsc --noEmit',
    'make check',
  ])('is a claim: %s', (command) => expect(claimsCheck(command)).toBe(true));
  it.each(['ls -la', 'git status', 'cat latest.txt', 'npm install', 'echo contest'])(
    'is not a claim: %s',
    (command) => expect(claimsCheck(command)).toBe(false),
  );
});
