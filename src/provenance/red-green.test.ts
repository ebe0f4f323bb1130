import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedTests, commandFor, isTestFile, runRedGreen, type RedGreenInput } from './red-green.js';
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

describe('red→green on a real repository', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const run: RedGreenInput['run'] = async (command, cwd) => {
    const [file, ...args] = typeof command === 'string' ? ['sh', '-c', command] : command;
    const result = spawnSync(file!, args, { cwd, encoding: 'utf8' });
    return {
      outcome: result.status === 0 ? 'passed' : 'failed',
      exitCode: result.status,
      durationMs: 0,
      outputTail: `${result.stdout}${result.stderr}`,
      command: String(command),
    };
  };

  it("lays exactly the session's test files on the base, even one named like a pathspec", async () => {
    const root = mkdtempSync(join(tmpdir(), 'baton-red-green-'));
    const scratch = `${root}-scratch`;
    dirs.push(root, scratch);
    const sh = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: root,
        encoding: 'utf8',
      });
    sh('init', '-q', '-b', 'main');
    writeFileSync(join(root, 'value.js'), 'module.exports = 1;\n');
    sh('add', '.');
    sh('commit', '-qm', 'base');
    const base = sh('rev-parse', 'HEAD').trim();
    // A test that needs the change, named so that as a pathspec it would lay every other file
    // of the session (its change too) on the base: it would pass there and be called vacuous.
    writeFileSync(join(root, 'value.js'), 'module.exports = 2;\n');
    writeFileSync(join(root, ':(exclude)b.test.js'), "if (require('./value.js') !== 2) process.exit(1);\n");
    sh('add', '.');
    sh('commit', '-qm', 'session');
    const tree = sh('rev-parse', 'HEAD').trim();
    const files = await changedTests(root, base, tree);
    expect(files).toEqual([':(exclude)b.test.js']);

    const { tests } = await runRedGreen({
      root,
      base,
      tree,
      files,
      scratch,
      template: ['node'],
      timeoutSeconds: 30,
      run,
    });
    expect(tests).toMatchObject([{ base: 'failed', branch: 'passed', proves: true, vacuous: false }]);
  });
});
