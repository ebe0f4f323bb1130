import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotCommit, snapshotWork, sweepSnapshotFolders } from './snapshot.js';

let repo: string;
const run = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-snapshot-test-'));
  run('init', '-q', '-b', 'main');
  run('config', 'user.email', 't@example.com');
  run('config', 'user.name', 'T');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  writeFileSync(join(repo, '.gitignore'), 'ignored.txt\n');
  run('add', '.');
  run('commit', '-qm', 'first');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('snapshotWork', () => {
  it('is the head tree when nothing changed', async () => {
    const snapshot = await snapshotWork(repo);
    expect(snapshot).toEqual({
      head: run('rev-parse', 'HEAD'),
      tree: run('rev-parse', 'HEAD^{tree}'),
      headTree: run('rev-parse', 'HEAD^{tree}'),
    });
  });

  it('takes unstaged, staged and untracked work, leaves ignored files, and touches neither index nor files', async () => {
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    writeFileSync(join(repo, 'b.txt'), 'staged\n');
    run('add', 'b.txt');
    writeFileSync(join(repo, 'c.txt'), 'untracked\n');
    writeFileSync(join(repo, 'ignored.txt'), 'secret\n');
    const indexBefore = readFileSync(join(repo, '.git', 'index'));
    const statusBefore = run('status', '--porcelain');
    const mtime = statSync(join(repo, 'a.txt')).mtimeMs;

    const snapshot = await snapshotWork(repo);

    expect(run('ls-tree', '--name-only', snapshot.tree).split('\n').sort()).toEqual([
      '.gitignore',
      'a.txt',
      'b.txt',
      'c.txt',
    ]);
    expect(run('cat-file', '-p', `${snapshot.tree}:a.txt`)).toBe('two');
    expect(readFileSync(join(repo, '.git', 'index')).equals(indexBefore)).toBe(true);
    expect(run('status', '--porcelain')).toBe(statusBefore);
    expect(statSync(join(repo, 'a.txt')).mtimeMs).toBe(mtime);
  });

  it('sees an edit that keeps the size, made in the same second as the index was written', async () => {
    // As after a checkout and an agent's quick edit: the index, the cached stat of a.txt and the
    // edited file all carry one time. git re-reads such a "racily clean" file only if it can tell,
    // from the index's own time, that the edit may have come after the index was written.
    const then = new Date(Math.floor(Date.now() / 1000) * 1000 - 10_000);
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    utimesSync(join(repo, 'a.txt'), then, then);
    run('add', 'a.txt');
    writeFileSync(join(repo, 'a.txt'), 'six\n');
    utimesSync(join(repo, 'a.txt'), then, then);
    utimesSync(join(repo, '.git', 'index'), then, then);
    const snapshot = await snapshotWork(repo);
    expect(run('cat-file', '-p', `${snapshot.tree}:a.txt`)).toBe('six');
  });

  it('gives the same tree id for the same work, and a commit on the head that nothing points at', async () => {
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    const first = await snapshotWork(repo);
    expect((await snapshotWork(repo)).tree).toBe(first.tree);
    const commit = await snapshotCommit(repo, first, 'work');
    expect(run('rev-parse', `${commit}^`)).toBe(first.head);
    expect(run('rev-parse', `${commit}^{tree}`)).toBe(first.tree);
    expect(run('for-each-ref', '--contains', commit)).toBe('');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    expect(await snapshotCommit(repo, await snapshotWork(repo), 'no work')).toBe(first.head);
  });

  it('works in a linked worktree, whose index lives under the main repository', async () => {
    const linked = join(repo, '..', `${repo.split('/').pop()}-linked`);
    run('worktree', 'add', '-q', '-b', 'side', linked);
    try {
      writeFileSync(join(linked, 'new.txt'), 'x\n');
      const snapshot = await snapshotWork(linked);
      expect(run('ls-tree', '--name-only', snapshot.tree).split('\n')).toContain('new.txt');
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: linked, encoding: 'utf8' })).toBe(
        '?? new.txt\n',
      );
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  });

  it('sees an edit that kept the size and the time of the cached stat (a racily clean entry)', async () => {
    // The index records a.txt; then a same-size edit lands with the very same mtime, as two
    // writes in one second do, and the index is dated that second too.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    utimesSync(join(repo, 'a.txt'), at, at);
    run('add', 'a.txt');
    writeFileSync(join(repo, 'a.txt'), 'eno\n');
    utimesSync(join(repo, 'a.txt'), at, at);
    utimesSync(join(repo, '.git', 'index'), at, at);
    const snapshot = await snapshotWork(repo);
    expect(run('cat-file', '-p', `${snapshot.tree}:a.txt`)).toBe('eno');
  });
});

describe('a worktree removed after its work was read', () => {
  it('still makes the snapshot commit from the repository, and a git call in the gone folder is a conflict, not a fault', async () => {
    const worktree = join(repo, '..', `${repo.split('/').pop() ?? 'r'}-wt`);
    run('worktree', 'add', '-q', '-b', 'side', worktree);
    try {
      writeFileSync(join(worktree, 'new.txt'), 'work\n');
      const snapshot = await snapshotWork(worktree);
      rmSync(worktree, { recursive: true, force: true });
      const commit = await snapshotCommit(repo, snapshot, 'from the repository');
      expect(run('rev-parse', `${commit}^{tree}`)).toBe(snapshot.tree);
      await expect(snapshotCommit(worktree, snapshot, 'from the gone folder')).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(/does not exist \(removed meanwhile\?\)/),
      });
    } finally {
      rmSync(worktree, { recursive: true, force: true });
    }
  });
});

describe('the git calls of a snapshot and of its commit (decision 449)', () => {
  it("lists the repository's settings once for a snapshot, and a radar's unsigned commit needs neither a listing nor a look at the head", async () => {
    // A stand-in for git first on the PATH: it writes down each call, then runs the real one.
    const bin = mkdtempSync(join(tmpdir(), 'baton-git-calls-'));
    const calls = join(bin, 'calls');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`, {
      mode: 0o755,
    });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    const made = (): string[] =>
      readFileSync(calls, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.replace(/^(-c \S+ )*/, '').split(' ')[0] ?? '');
    try {
      writeFileSync(join(repo, 'a.txt'), 'two\n');
      const snapshot = await snapshotWork(repo);
      // The listing runs beside the rev-parse: either may start first.
      const first = made();
      expect(first.slice(0, 2).sort()).toEqual(['config', 'rev-parse']);
      expect(first.slice(2)).toEqual(['add', 'write-tree']);
      rmSync(calls);
      const commit = await snapshotCommit(repo, snapshot, 'radar', { unsigned: true });
      expect(made()).toEqual(['commit-tree']);
      expect(run('rev-parse', `${commit}^{tree}`)).toBe(snapshot.tree);
      expect(run('rev-parse', `${commit}^`)).toBe(snapshot.head);
    } finally {
      process.env.PATH = path;
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe('sweepSnapshotFolders', () => {
  it('removes the index copies older than its limit and leaves newer ones and other folders alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-sweep-test-'));
    try {
      const now = Date.now();
      const old = join(dir, 'baton-snapshot-old123');
      const fresh = join(dir, 'baton-snapshot-new123');
      const other = join(dir, 'someone-else-old');
      for (const folder of [old, fresh, other]) {
        mkdirSync(folder);
        writeFileSync(join(folder, 'index'), 'x');
      }
      const hoursAgo = (now - 2 * 60 * 60_000) / 1000;
      utimesSync(old, hoursAgo, hoursAgo);
      utimesSync(other, hoursAgo, hoursAgo);
      expect(sweepSnapshotFolders(now, 60 * 60_000, dir)).toBe(1);
      expect(readdirSync(dir).sort()).toEqual(['baton-snapshot-new123', 'someone-else-old']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves a running process's folder alone however old its clock makes it, and takes a gone one's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-sweep-test-'));
    try {
      const gone = spawnSync('true').pid;
      const running = join(dir, `baton-snapshot-${process.pid}-abc123`);
      const left = join(dir, `baton-snapshot-${gone}-abc123`);
      for (const folder of [running, left]) mkdirSync(folder);
      // A sweeping process whose clock runs a day ahead.
      expect(sweepSnapshotFolders(Date.now() + 24 * 60 * 60_000, 60 * 60_000, dir)).toBe(1);
      expect(readdirSync(dir)).toEqual([`baton-snapshot-${process.pid}-abc123`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
