import { describe, expect, it } from 'vitest';
import { commandFor, isTestFile } from './red-green.js';
import { NOT_TEST_FILES, TEST_FILES } from './test-file-corpus.js';

describe('which changed files red→green runs as tests (decision 292)', () => {
  it('counts every test file of the corpus and none of its other files', () => {
    expect(TEST_FILES.filter((p) => !isTestFile(p))).toEqual([]);
    expect(NOT_TEST_FILES.filter((p) => isTestFile(p))).toEqual([]);
  });
});

describe('the command for one test file', () => {
  it('puts the file where {file} stands, quoted for the shell, or appends it', () => {
    expect(commandFor('node --test {file}', "tests/it's.test.mjs")).toBe(
      `node --test 'tests/it'\\''s.test.mjs'`,
    );
    expect(commandFor('npx vitest run', 'a.test.ts')).toBe(`npx vitest run 'a.test.ts'`);
    expect(commandFor(['pytest', '-q'], 'tests/test_x.py')).toEqual(['pytest', '-q', 'tests/test_x.py']);
    expect(commandFor(['sh', '-c', 'run {file}'], 'x.sh')).toEqual(['sh', '-c', 'run x.sh']);
  });
});
