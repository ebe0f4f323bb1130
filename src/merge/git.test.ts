import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, tempRepo, type TempRepo } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  advanceBase,
  checkoutOf,
  commitSessionWork,
  conflictsBetween,
  DirtyCheckoutError,
  mergeInto,
  removeStaleScratches,
  withScratchWorktree,
} from './git.js';

let root: string;
let repo: string;

let made: TempRepo;
beforeEach(() => {
  made = tempRepo('baton-merge-git-');
  ({ root, repo } = made);
});
afterEach(() => made.cleanup());

/** A session-like worktree on its own branch. */
function worktree(name: string): string {
  const path = join(root, name);
  git(repo, 'worktree', 'add', '-q', '-b', `baton/${name}`, path, 'main');
  return path;
}

describe('committing a session’s uncommitted work', () => {
  it('moves the branch to a commit of everything on disk, and leaves the worktree clean with its files as they were', async () => {
    const wt = worktree('s');
    writeFileSync(join(wt, 'a.txt'), 'changed\n');
    writeFileSync(join(wt, 'new.txt'), 'untracked\n');
    const before = git(wt, 'rev-parse', 'HEAD');
    const { tip, committed } = await commitSessionWork({
      worktree: wt,
      branch: 'baton/s',
      name: 's',
      prompt: 'p',
    });
    expect(committed).toBe(true);
    expect(git(repo, 'rev-parse', 'baton/s')).toBe(tip);
    expect(git(repo, 'rev-parse', `${tip}^`)).toBe(before);
    expect(git(repo, 'show', `${tip}:new.txt`)).toBe('untracked');
    expect(git(wt, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(wt, 'a.txt'), 'utf8')).toBe('changed\n');
  });

  it('titles that commit by the prompt’s first line and names the session in a trailer', async () => {
    const wt = worktree('utils');
    writeFileSync(join(wt, 'a.txt'), 'changed\n');
    const prompt = '\n  Add a price formatter to utils  \n\nKeep it small.';
    const { tip } = await commitSessionWork({ worktree: wt, branch: 'baton/utils', name: 'utils', prompt });
    expect(git(repo, 'log', '-1', '--format=%s', tip)).toBe('Add a price formatter to utils');
    expect(git(repo, 'log', '-1', '--format=%(trailers:key=Baton-Session,valueonly)', tip)).toBe('utils');
    expect(git(repo, 'log', '-1', '--format=%B', tip)).not.toMatch(/Uncommitted work of session/);
  });

  it('changes nothing when there is nothing uncommitted', async () => {
    const wt = worktree('s');
    const before = git(wt, 'rev-parse', 'HEAD');
    expect(await commitSessionWork({ worktree: wt, branch: 'baton/s', name: 's', prompt: 'p' })).toEqual({
      tip: before,
      committed: false,
    });
  });

  it('refuses a worktree that is not on the session branch', async () => {
    const wt = worktree('s');
    git(wt, 'checkout', '-q', '--detach');
    await expect(
      commitSessionWork({ worktree: wt, branch: 'baton/s', name: 's', prompt: 'p' }),
    ).rejects.toThrow(/on a detached HEAD, not on its branch baton\/s/);
  });
});

describe('merging in a scratch worktree', () => {
  it('merges, reports conflicting files, and removes the scratch worktree whatever happens', async () => {
    const wt = worktree('s');
    writeFileSync(join(wt, 'a.txt'), 'theirs\n');
    git(wt, 'commit', '-qam', 'theirs');
    writeFileSync(join(repo, 'a.txt'), 'ours\n');
    git(repo, 'commit', '-qam', 'ours');
    const scratch = join(root, 'scratch');
    const step = await withScratchWorktree(repo, scratch, git(repo, 'rev-parse', 'main'), (dir) =>
      mergeInto(dir, git(repo, 'rev-parse', 'baton/s'), { squash: false, message: 'm', identity: [] }),
    );
    expect(step).toMatchObject({ ok: false, files: ['a.txt'] });
    expect(existsSync(scratch)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('scratch');
    expect((await conflictsBetween(repo, 'main', 'baton/s')).files).toEqual(['a.txt']);

    await expect(
      withScratchWorktree(repo, scratch, 'main', () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(existsSync(scratch)).toBe(false);
  });

  it('removes scratch worktrees a killed supervisor left behind, from the folder and from the repository', async () => {
    const folder = join(root, 'merges');
    git(repo, 'worktree', 'add', '-q', '--detach', join(folder, 'm1'), 'main');
    execFileSync('mkdir', ['-p', join(folder, 'not-a-worktree')]);
    expect(await removeStaleScratches(folder)).toBe(2);
    expect(existsSync(join(folder, 'm1'))).toBe(false);
    expect(existsSync(join(folder, 'not-a-worktree'))).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('m1');
    expect(await removeStaleScratches(join(root, 'none'))).toBe(0);
  });

  it('squashes a branch into one commit with the given message', async () => {
    const wt = worktree('s');
    for (const n of ['1', '2']) {
      writeFileSync(join(wt, `f${n}.txt`), n);
      git(wt, 'add', '.');
      git(wt, 'commit', '-qm', `c${n}`);
    }
    const base = git(repo, 'rev-parse', 'main');
    const step = await withScratchWorktree(repo, join(root, 'scratch'), base, (dir) =>
      mergeInto(dir, git(repo, 'rev-parse', 'baton/s'), {
        squash: true,
        message: 'Add two files\n\nBaton session s',
        identity: [],
      }),
    );
    if (!step.ok) throw new Error(step.detail);
    expect(git(repo, 'rev-list', '--parents', '-n', '1', step.head).split(' ')).toEqual([step.head, base]);
    expect(git(repo, 'log', '-1', '--format=%B', step.head)).toBe('Add two files\n\nBaton session s');
    expect(git(repo, 'ls-tree', '--name-only', step.head).split('\n')).toEqual(['a.txt', 'f1.txt', 'f2.txt']);
  });
});

describe('advancing the base', () => {
  async function landable(): Promise<{ from: string; to: string }> {
    const from = git(repo, 'rev-parse', 'main');
    const to = git(repo, 'commit-tree', git(repo, 'write-tree'), '-p', from, '-m', 'next');
    return { from, to };
  }

  it('fast-forwards a clean checkout of the base, files included', async () => {
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    git(repo, 'add', 'b.txt');
    const { from, to } = await landable();
    git(repo, 'reset', '-q', '--hard', from);
    rmSync(join(repo, 'b.txt'), { force: true });
    expect(await checkoutOf(repo, 'main')).toBe(repo);
    expect(await advanceBase(repo, 'main', from, to)).toBe('advanced');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(to);
    expect(readFileSync(join(repo, 'b.txt'), 'utf8')).toBe('b\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses a dirty checkout of the base and changes nothing', async () => {
    const { from, to } = await landable();
    writeFileSync(join(repo, 'a.txt'), 'my edit\n');
    await expect(advanceBase(repo, 'main', from, to)).rejects.toBeInstanceOf(DirtyCheckoutError);
    await expect(advanceBase(repo, 'main', from, to)).rejects.toMatchObject({ files: ['a.txt'] });
    expect(git(repo, 'rev-parse', 'main')).toBe(from);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('my edit\n');
  });

  it('answers "moved" instead of clobbering a base that moved meanwhile', async () => {
    git(repo, 'checkout', '-q', '--detach');
    const { from, to } = await landable();
    const other = git(repo, 'commit-tree', git(repo, 'write-tree'), '-p', from, '-m', 'someone else');
    git(repo, 'update-ref', 'refs/heads/main', other);
    expect(await advanceBase(repo, 'main', from, to)).toBe('moved');
    expect(git(repo, 'rev-parse', 'main')).toBe(other);
    git(repo, 'update-ref', 'refs/heads/main', from);
    expect(await advanceBase(repo, 'main', from, to)).toBe('advanced');
    expect(git(repo, 'rev-parse', 'main')).toBe(to);
  });
});
