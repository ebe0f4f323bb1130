import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffStat, parseRawNumstat, sessionDiffStat } from './diffstat.js';

let repo: string;
const run = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-diffstat-test-'));
  run('init', '-q', '-b', 'main');
  run('config', 'user.email', 't@example.com');
  run('config', 'user.name', 'T');
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(repo, 'gone.txt'), 'x\ny\n');
  run('add', '.');
  run('commit', '-qm', 'first');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('sessionDiffStat', () => {
  it("counts a session's own work only, after it rebased onto work that landed on its base", async () => {
    const base = run('rev-parse', 'HEAD');
    run('checkout', '-q', '-b', 'session');
    writeFileSync(join(repo, 'mine.txt'), 'mine\n');
    run('add', 'mine.txt');
    run('commit', '-qm', 'mine');
    run('checkout', '-q', 'main');
    writeFileSync(join(repo, 'landed.txt'), 'landed\n');
    run('add', 'landed.txt');
    run('commit', '-qm', 'landed');
    run('checkout', '-q', 'session');
    run('rebase', '-q', 'main');

    const session = { worktree: repo, base_commit: base, base_ref: 'main' };
    expect((await diffStat(repo, base)).files.map((f) => f.path)).toEqual(['landed.txt', 'mine.txt']);
    expect((await sessionDiffStat(session)).files.map((f) => f.path)).toEqual(['mine.txt']);
    // A base that is not a branch cannot move: its commit stands.
    expect((await sessionDiffStat({ ...session, base_ref: 'HEAD' })).files).toHaveLength(2);
  });
});

describe('diffStat', () => {
  it('counts committed, unstaged, deleted, untracked and binary changes against the base', async () => {
    const base = run('rev-parse', 'HEAD');
    writeFileSync(join(repo, 'committed.txt'), 'c\n');
    run('add', 'committed.txt');
    run('commit', '-qm', 'second');
    writeFileSync(join(repo, 'a.txt'), 'one\n2\nthree\nfour\n');
    unlinkSync(join(repo, 'gone.txt'));
    writeFileSync(join(repo, 'new file.txt'), 'n\nn\n');
    writeFileSync(join(repo, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255]));

    const stat = await diffStat(repo, base);

    expect(stat.files).toEqual([
      { path: 'a.txt', status: 'M', additions: 2, deletions: 1, binary: false },
      { path: 'blob.bin', status: 'A', additions: 0, deletions: 0, binary: true },
      { path: 'committed.txt', status: 'A', additions: 1, deletions: 0, binary: false },
      { path: 'gone.txt', status: 'D', additions: 0, deletions: 2, binary: false },
      { path: 'new file.txt', status: 'A', additions: 2, deletions: 0, binary: false },
    ]);
    expect([stat.additions, stat.deletions]).toEqual([5, 3]);
    expect(run('status', '--porcelain')).toContain('?? "new file.txt"');
  });

  it('is empty for a missing worktree and for no work', async () => {
    expect((await diffStat(join(repo, 'nowhere'), 'HEAD')).files).toEqual([]);
    expect(await diffStat(repo, run('rev-parse', 'HEAD'))).toEqual({ files: [], additions: 0, deletions: 0 });
  });

  it('keeps a path with a tab or newline whole', () => {
    const raw = ':000000 100644 0000000 1234567 A\0weird\tname\n.txt\0' + '1\t0\tweird\tname\n.txt\0';
    expect(parseRawNumstat(raw)).toEqual([
      { path: 'weird\tname\n.txt', status: 'A', additions: 1, deletions: 0, binary: false },
    ]);
  });

  it('does not write to the repository', async () => {
    writeFileSync(join(repo, 'untracked.txt'), 'u\n');
    const objects = run('count-objects');
    await diffStat(repo, run('rev-parse', 'HEAD'));
    expect(run('count-objects')).toBe(objects);
  });
});
