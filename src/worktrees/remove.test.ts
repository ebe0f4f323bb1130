import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeWorktree } from './index.js';

let root: string;
let repo: string;
let tree: string;
let base: string;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-remove-test-'));
  repo = join(root, 'repo');
  tree = join(root, 'tree');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  writeFileSync(join(repo, '.gitignore'), '*.local\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'worktree', 'add', '-q', '-b', 'baton/s', tree);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const remove = () =>
  removeWorktree({ repo, path: tree, branch: 'baton/s', baseCommit: base, snapshotName: 's' });

describe('removeWorktree', () => {
  it('keeps every kind of uncommitted work in a snapshot ref before the worktree goes, a force-added ignored file included', async () => {
    writeFileSync(join(tree, 'a.txt'), 'two\n');
    writeFileSync(join(tree, 'new.txt'), 'untracked\n');
    writeFileSync(join(tree, 'keep.local'), 'staged though ignored\n');
    git(tree, 'add', '--force', 'keep.local');
    writeFileSync(join(tree, 'skip.local'), 'ignored, never staged\n');

    const removed = await remove();

    expect(existsSync(tree)).toBe(false);
    expect(removed.snapshotRef).toBe('refs/baton/snapshots/s');
    const commit = git(repo, 'rev-parse', 'refs/baton/snapshots/s');
    expect(commit).toBe(removed.snapshotCommit);
    expect(git(repo, 'show', `${commit}:a.txt`)).toBe('two');
    expect(git(repo, 'show', `${commit}:new.txt`)).toBe('untracked');
    expect(git(repo, 'show', `${commit}:keep.local`)).toBe('staged though ignored');
    expect(git(repo, 'ls-tree', '--name-only', commit)).not.toContain('skip.local');
    expect(git(repo, 'rev-parse', `${commit}^`)).toBe(base);
    // The branch held nothing beyond its base; its work lives on in the snapshot.
    expect(removed.branchDeleted).toBe(true);
  });

  it('makes no snapshot of a clean worktree, and names a second snapshot apart from the first', async () => {
    const clean = await remove();
    expect(clean.snapshotRef).toBeUndefined();

    git(repo, 'update-ref', 'refs/baton/snapshots/s', base);
    git(repo, 'worktree', 'add', '-q', '-b', 'baton/t', tree);
    writeFileSync(join(tree, 'a.txt'), 'three\n');
    const second = await removeWorktree({
      repo,
      path: tree,
      branch: 'baton/t',
      baseCommit: base,
      snapshotName: 's',
    });
    expect(second.snapshotRef).toBe('refs/baton/snapshots/s-2');
    expect(git(repo, 'show', `${second.snapshotCommit ?? ''}:a.txt`)).toBe('three');
  });
});
