import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, tempRepo, type TempRepo } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStateError } from '../shared/errors.js';
import { createWorktree } from './index.js';

let root: string;
let repo: string;
let base: string;

let made: TempRepo;
beforeEach(() => {
  made = tempRepo('baton-create-test-');
  ({ root, repo, base } = made);
});
afterEach(() => made.cleanup());

describe('createWorktree', () => {
  it('makes the branch and its worktree at the base commit', async () => {
    const path = join(root, 'trees', 's');
    await createWorktree({ repo, path, branch: 'baton/s', baseCommit: base });
    expect(git(path, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'rev-parse', 'refs/heads/baton/s')).toBe(base);
  });

  it('refuses a branch that exists, leaving it, its commits and the folder untouched, whatever the user’s language', async () => {
    git(repo, 'switch', '-q', '-c', 'baton/mine');
    writeFileSync(join(repo, 'b.txt'), 'mine\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'my own work');
    const mine = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'switch', '-q', 'main');
    const path = join(root, 'trees', 'mine');
    const language = process.env['LANGUAGE'];
    process.env['LANGUAGE'] = 'de';
    try {
      const made = createWorktree({ repo, path, branch: 'baton/mine', baseCommit: base });
      await expect(made).rejects.toThrow(SessionStateError);
      await expect(made).rejects.toThrow(/Branch baton\/mine already exists/);
    } finally {
      if (language === undefined) delete process.env['LANGUAGE'];
      else process.env['LANGUAGE'] = language;
    }
    expect(git(repo, 'rev-parse', 'refs/heads/baton/mine')).toBe(mine);
    expect(existsSync(path)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(path);
  });

  it('refuses a folder that exists before running git', async () => {
    const path = join(root, 'taken');
    writeFileSync(path, 'x');
    await expect(createWorktree({ repo, path, branch: 'baton/t', baseCommit: base })).rejects.toThrow(
      /already exists; remove it or pick another name/,
    );
    expect(git(repo, 'branch', '--list', 'baton/t')).toBe('');
  });
});
