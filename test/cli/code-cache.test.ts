/**
 * V8's code cache for the bundles (decision 440): a cache is used only when it is the file's own
 * and V8 takes it; a missing, truncated or foreign one is compiled as usual and written anew; a
 * folder that cannot be written is passed over, and none at all still starts. Then the real
 * bundles, from a copy of the build: a supervisor and a CLI whose caches were all truncated start
 * and answer, a build whose cache folder cannot be written keeps its caches in Baton's home, and
 * nothing is written anywhere else.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, TestBaton } from '../support/baton.js';

let t: TestBaton;
beforeEach(() => {
  t = new TestBaton();
});
afterEach(() => t.cleanup());

interface Run {
  value: string;
  stats: { accepted: number; refused: number; missing: number; written: number; folder?: string } | null;
}

describe('the code cache', () => {
  /** A bundle of two CommonJS files of the same length, listed in its manifest, and a loader script. */
  function bundle(): {
    dir: string;
    run: (folders: string[], file?: string, env?: NodeJS.ProcessEnv) => Run;
  } {
    const dir = join(t.root, 'bundle');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{"type":"commonjs"}');
    // Same length, different answers: V8's own check (the source's length) cannot tell them apart.
    writeFileSync(join(dir, 'a.js'), "module.exports = [1111, (() => 'a')()].join(':');\n");
    writeFileSync(join(dir, 'b.js'), "module.exports = [2222, (() => 'b')()].join(':');\n");
    writeFileSync(join(dir, 'unlisted.js'), "module.exports = 'unlisted';\n");
    writeFileSync(
      join(dir, 'code-cache.json'),
      JSON.stringify({ 'a.js': 'aaaaaaaaaaaaaaaa', 'b.js': 'bbbbbbbbbbbbbbbb' }),
    );
    const loader = join(t.root, 'load.mjs');
    writeFileSync(
      loader,
      [
        `import { useCodeCache } from ${JSON.stringify(join(ROOT, 'dist', 'shared', 'code-cache.js'))};`,
        "import { createRequire } from 'node:module';",
        'const [dir, folders, file] = JSON.parse(process.argv[2]);',
        'const cache = useCodeCache(dir, folders);',
        "const value = createRequire(import.meta.url)(dir + '/' + file);",
        'cache?.save();',
        'process.stdout.write(JSON.stringify({ value, stats: cache?.stats ?? null }));',
      ].join('\n'),
    );
    return {
      dir,
      run: (folders, file = 'a.js', env = {}) =>
        JSON.parse(
          execFileSync(process.execPath, [loader, JSON.stringify([dir, folders, file])], {
            encoding: 'utf8',
            env: { ...t.env, ...env },
          }),
        ) as Run,
    };
  }
  const cacheOf = (folder: string, file: string): string => {
    const found = readdirSync(folder).filter((name) => name.startsWith(`${file}-`));
    expect(found).toHaveLength(1);
    return join(folder, found[0]!);
  };

  it('writes a missing cache, then compiles from it', () => {
    const { dir, run } = bundle();
    const folder = join(dir, '.code-cache');
    expect(run([folder])).toEqual({
      value: '1111:a',
      stats: { accepted: 0, refused: 0, missing: 1, written: 1, folder },
    });
    expect(run([folder])).toEqual({
      value: '1111:a',
      stats: { accepted: 1, refused: 0, missing: 0, written: 0 },
    });
    // A file the build did not list is left to Node.
    expect(run([folder], 'unlisted.js').stats).toEqual({ accepted: 0, refused: 0, missing: 0, written: 0 });
    expect(readdirSync(folder).filter((name) => name.startsWith('unlisted'))).toEqual([]);
  });

  it('compiles as usual past a truncated cache, and writes it whole again', () => {
    const { dir, run } = bundle();
    const folder = join(dir, '.code-cache');
    run([folder]);
    const file = cacheOf(folder, 'a.js');
    const whole = statSync(file).size;
    truncateSync(file, Math.floor(whole / 2));
    expect(run([folder])).toEqual({
      value: '1111:a',
      stats: { accepted: 0, refused: 1, missing: 0, written: 1, folder },
    });
    expect(statSync(file).size).toBe(whole);
    truncateSync(file, 3); // shorter than its own header
    expect(run([folder])).toMatchObject({ value: '1111:a', stats: { accepted: 0, written: 1 } });
    expect(run([folder]).stats).toMatchObject({ accepted: 1 });
  });

  it("never takes another file's cache, even one V8 would take", () => {
    const { dir, run } = bundle();
    const folder = join(dir, '.code-cache');
    run([folder], 'a.js');
    run([folder], 'b.js');
    // b's cache under a's name: same length of source, same V8, same flags.
    cpSync(cacheOf(folder, 'b.js'), cacheOf(folder, 'a.js'));
    expect(run([folder])).toEqual({
      value: '1111:a',
      stats: { accepted: 0, refused: 0, missing: 1, written: 1, folder },
    });
    expect(run([folder])).toMatchObject({ value: '1111:a', stats: { accepted: 1 } });
    expect(run([folder], 'b.js')).toMatchObject({ value: '2222:b', stats: { accepted: 1 } });
  });

  it('passes over a folder it cannot write, and starts with none at all', () => {
    const { dir, run } = bundle();
    // A file where the folder would be: it cannot be made, whoever runs the test (root included).
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, '');
    const home = join(t.root, 'home-cache');
    expect(run([join(blocked, '.code-cache'), home])).toMatchObject({
      value: '1111:a',
      stats: { written: 1, folder: home },
    });
    expect(run([join(blocked, '.code-cache'), home]).stats).toMatchObject({ accepted: 1 });
    expect(run([join(blocked, 'x'), join(blocked, 'y')])).toEqual({
      value: '1111:a',
      stats: { accepted: 0, refused: 0, missing: 1, written: 0 },
    });
  });

  it('is off with BATON_CODE_CACHE=off, and without a manifest', () => {
    const { dir, run } = bundle();
    const folder = join(dir, '.code-cache');
    expect(run([folder], 'a.js', { BATON_CODE_CACHE: 'off' })).toEqual({ value: '1111:a', stats: null });
    rmSync(join(dir, 'code-cache.json'));
    expect(run([folder])).toEqual({ value: '1111:a', stats: null });
    expect(existsSync(folder)).toBe(false);
  });
});

describe('the bundles with their code cache', () => {
  /** A copy of the build (bin, dist, package.json; the page, skills and node_modules shared), with no cache yet. */
  function copyOfBuild(): string {
    const dir = join(t.root, 'install');
    mkdirSync(dir);
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), {
      recursive: true,
      filter: (source) => !source.endsWith('.code-cache'),
    });
    mkdirSync(join(dir, 'web'));
    symlinkSync(join(ROOT, 'web', 'dist'), join(dir, 'web', 'dist'));
    symlinkSync(join(ROOT, 'skills'), join(dir, 'skills'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    return dir;
  }
  const baton = (
    dir: string,
    args: string[],
    cwd: string,
  ): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) =>
      execFile(
        process.execPath,
        [join(dir, 'bin', 'baton'), ...args],
        { cwd, env: t.env },
        (error, stdout, stderr) =>
          done({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
            stdout,
            stderr,
          }),
      ),
    );
  /** Every file below `dir`, relative to it. */
  const files = (dir: string): string[] =>
    existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).sort() : [];

  it('lists the files the supervisor, the host and the commands load, none of them an entry', () => {
    for (const folder of ['bundle', 'cli-commands']) {
      const listed = Object.keys(
        JSON.parse(readFileSync(join(ROOT, 'dist', folder, 'code-cache.json'), 'utf8')) as object,
      );
      expect(listed.length).toBeGreaterThan(10);
      expect(listed).not.toContain('cli.js');
      expect(listed).not.toContain('supervisor.js');
      for (const file of listed) expect(existsSync(join(ROOT, 'dist', folder, file))).toBe(true);
    }
    // The supervisor's own code, the largest part of its start.
    const supervisor = JSON.parse(
      readFileSync(join(ROOT, 'dist', 'bundle', 'code-cache.json'), 'utf8'),
    ) as object;
    expect(Object.keys(supervisor).some((file) => file.startsWith('supervisor-'))).toBe(true);
  });

  it('starts and answers with every cache truncated, then writes them whole', async () => {
    const dir = copyOfBuild();
    const repo = t.repo();
    // A first supervisor and command write the caches (at exit, or once the supervisor has loaded).
    expect((await baton(dir, ['ls'], repo)).code).toBe(0);
    expect((await baton(dir, ['daemon', 'stop'], repo)).code).toBe(0);
    const caches = [
      join(dir, 'dist', 'bundle', '.code-cache'),
      join(dir, 'dist', 'cli-commands', '.code-cache'),
    ];
    for (const folder of caches) expect(files(folder).length).toBeGreaterThan(0);
    for (const folder of caches)
      for (const name of files(folder))
        truncateSync(join(folder, name), statSync(join(folder, name)).size >> 1);
    const truncated = caches.flatMap((folder) =>
      files(folder).map((name) => statSync(join(folder, name)).size),
    );

    const dispatched = await baton(
      dir,
      ['dispatch', 'x', '--name', 'cached', '--script', t.script([{ say: 'from a cached host' }]), '--wait'],
      repo,
    );
    expect(dispatched).toMatchObject({ code: 0, stdout: expect.stringContaining('ready for review') });
    const ls = await baton(dir, ['ls', '--json'], repo);
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout)).toMatchObject([expect.objectContaining({ name: 'cached' })]);
    expect((await baton(dir, ['daemon', 'stop'], repo)).code).toBe(0);
    // The CLI rewrote its caches at exit, the supervisor at its stop.
    const after = caches.flatMap((folder) => files(folder).map((name) => statSync(join(folder, name)).size));
    expect(after.reduce((a, b) => a + b, 0)).toBeGreaterThan(truncated.reduce((a, b) => a + b, 0));
    // Nothing but the caches in the build's folders; the home's own cache folder is not made.
    expect(files(join(t.home, 'code-cache'))).toEqual([]);
  });

  it('keeps the caches in Baton’s home when the build cannot be written', async () => {
    const dir = copyOfBuild();
    const repo = t.repo();
    // A file where each cache folder would be: the build's folders cannot take them, whoever runs
    // the test (a read-only install; chmod would not stop root).
    for (const folder of ['bundle', 'cli-commands'])
      writeFileSync(join(dir, 'dist', folder, '.code-cache'), '');
    const before = files(join(dir, 'dist'));
    expect((await baton(dir, ['ls'], repo)).code).toBe(0);
    expect((await baton(dir, ['daemon', 'stop'], repo)).code).toBe(0);
    expect(files(join(dir, 'dist'))).toEqual(before);
    expect(files(join(t.home, 'code-cache')).length).toBeGreaterThan(0);
    // Compiled from them the next time: the command answers the same.
    const again = await baton(dir, ['ls', '--json'], repo);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([]);
  });
});
