import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pushSessionWork, SyncPushError, type PushInput } from './push.js';

let root: string;
let repo: string;
let worktree: string;
let bare: string;
const input = (extra: Partial<PushInput> = {}): PushInput => ({
  repo,
  worktree,
  branch: 'baton/s',
  name: 's',
  sessionId: 'id1',
  remote: 'origin',
  ...extra,
});
const remoteRef = (ref: string): string | undefined =>
  git(bare, 'for-each-ref', '--format=%(objectname)', ref) || undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-sync-push-')));
  repo = join(root, 'repo');
  bare = join(root, 'remote.git');
  worktree = join(root, 'wt');
  git(root, 'init', '--quiet', '-b', 'main', repo);
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'base');
  git(root, 'init', '--quiet', '--bare', bare);
  git(repo, 'remote', 'add', 'origin', bare);
  git(repo, 'worktree', 'add', '--quiet', '-b', 'baton/s', worktree);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('a push of a session’s work', () => {
  it('deletes the remote snapshot once the work is all committed, so a restore never lays stale work over the branch', async () => {
    writeFileSync(join(worktree, 'u.txt'), 'u\n');
    const first = await pushSessionWork(input());
    expect(remoteRef('refs/baton/snapshots/id1')).toBe(first.snapshotCommit);
    git(worktree, 'add', '.');
    git(worktree, 'commit', '-qm', 'now committed');
    const second = await pushSessionWork(input({ lastPushed: first.commit }));
    expect(second).toMatchObject({
      snapshotRef: null,
      snapshotCommit: null,
      commit: git(worktree, 'rev-parse', 'HEAD'),
    });
    expect(remoteRef('refs/baton/snapshots/id1')).toBeUndefined();
    expect(remoteRef('refs/heads/baton/s')).toBe(second.commit);
  });

  it('makes the same snapshot commit of the same work, so a turn that changed nothing pushes nothing', async () => {
    writeFileSync(join(worktree, 'u.txt'), 'u\n');
    const first = await pushSessionWork(input());
    // Were anything pushed, the remote would refuse it: a limit no pack fits stands for a push
    // that must not happen (the remote's hooks do not run for Baton's pushes, decision 274).
    execFileSync('git', ['-C', bare, 'config', 'receive.maxInputSize', '1']);
    const again = await pushSessionWork(input({ lastPushed: first.commit }));
    expect(again).toEqual(first);
    writeFileSync(join(worktree, 'u.txt'), 'changed\n');
    const refused = await pushSessionWork(input({ lastPushed: first.commit })).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/maximum allowed size|unpacker error|unpack/) as unknown,
    });
  });

  it('moves a branch the session rewrote from the commit it pushed last, and refuses to without knowing it', async () => {
    writeFileSync(join(worktree, 'c.txt'), 'c\n');
    git(worktree, 'add', '.');
    git(worktree, 'commit', '-qm', 'c');
    const first = await pushSessionWork(input());
    git(worktree, 'commit', '-q', '--amend', '-m', 'c, amended');
    const refused = await pushSessionWork(input()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SyncPushError);
    expect((refused as SyncPushError).kind).toBe('moved');
    expect(remoteRef('refs/heads/baton/s')).toBe(first.commit);
    const second = await pushSessionWork(input({ lastPushed: first.commit }));
    expect(remoteRef('refs/heads/baton/s')).toBe(second.commit);
    expect(second.commit).not.toBe(first.commit);
  });

  it('pushes the branch alone when the worktree is gone, and names a missing remote', async () => {
    git(repo, 'worktree', 'remove', '--force', worktree);
    const pushed = await pushSessionWork(input());
    expect(pushed).toMatchObject({ commit: git(repo, 'rev-parse', 'baton/s'), snapshotCommit: null });
    const missing = await pushSessionWork(input({ remote: 'backup' })).catch((error: unknown) => error);
    expect(missing).toMatchObject({
      kind: 'no_remote',
      message: expect.stringMatching(/no remote "backup" \(it has: origin\)/) as unknown,
    });
  });

  it('says a remote that cannot be reached failed, in git’s words', async () => {
    git(repo, 'remote', 'set-url', 'origin', join(root, 'not-there.git'));
    const failed = await pushSessionWork(input()).catch((error: unknown) => error);
    expect(failed).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/git ls-remote failed: .*not-there\.git/) as unknown,
    });
  });
});
