/**
 * Keep-fresh's rebase on real git (decision 307): a clean rebase carries staged, unstaged and
 * untracked work across; any stop puts the worktree back byte for byte; a worktree left
 * mid-operation is never touched.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operationInProgress, rebaseWorktree } from './rebase.js';
import { git, lines, repositoryWithWorktree } from './testing.js';

let root: string;
let repo: string;
let tree: string;

/** Everything a user would see of the worktree: tip, status with index, and every file's bytes. */
function state(): { head: string; status: string; files: Record<string, string> } {
  const files: Record<string, string> = {};
  for (const path of git(tree, 'ls-files', '--cached', '--others', '--exclude-standard').split('\n'))
    if (path !== '') files[path] = readFileSync(join(tree, path), 'utf8');
  return {
    head: git(tree, 'rev-parse', 'HEAD'),
    status: git(tree, 'status', '--porcelain=v2', '--untracked-files=all'),
    files,
  };
}

beforeEach(() => {
  ({ root, repo, tree } = repositoryWithWorktree(
    'baton-rebase-test-',
    { 'a.txt': lines(), 'b.txt': 'b\n' },
    'first',
    'session',
  ));
  // The session's own commit: line 3.
  writeFileSync(join(tree, 'a.txt'), lines({ 3: 'session' }));
  git(tree, 'commit', '-qam', 'session work');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The base moves: a commit on main changing `line` of a.txt. */
function baseMoves(line: number, text: string): string {
  const content = readFileSync(join(repo, 'a.txt'), 'utf8').split('\n');
  content[line - 1] = text;
  writeFileSync(join(repo, 'a.txt'), content.join('\n'));
  git(repo, 'commit', '-qam', `base: line ${line}`);
  return git(repo, 'rev-parse', 'main');
}

describe('rebaseWorktree', () => {
  it('is up to date when the base tip is already in the branch', async () => {
    const outcome = await rebaseWorktree(tree, git(repo, 'rev-parse', 'main'));
    expect(outcome.kind).toBe('up_to_date');
  });

  it('rebases cleanly, carrying staged, unstaged and untracked work with its index', async () => {
    const tip = baseMoves(15, 'landed');
    writeFileSync(join(tree, 'b.txt'), 'b staged\n');
    git(tree, 'add', 'b.txt');
    writeFileSync(join(tree, 'b.txt'), 'b staged then edited\n');
    writeFileSync(join(tree, 'new.txt'), 'staged new file\n');
    git(tree, 'add', 'new.txt');
    writeFileSync(join(tree, 'loose.txt'), 'untracked\n');
    const old = git(tree, 'rev-parse', 'HEAD');

    const outcome = await rebaseWorktree(tree, tip);

    expect(outcome).toMatchObject({ kind: 'rebased', from: old, commits: 1 });
    expect(git(tree, 'rev-parse', 'HEAD^')).toBe(tip);
    expect(git(tree, 'symbolic-ref', 'HEAD')).toBe('refs/heads/session');
    const after = readFileSync(join(tree, 'a.txt'), 'utf8');
    expect(after).toContain('session');
    expect(after).toContain('landed');
    // The index came back as it was: b staged then edited again, new.txt staged, loose untracked.
    expect(git(tree, 'status', '--porcelain')).toBe(['MM b.txt', 'A  new.txt', '?? loose.txt'].join('\n'));
    expect(git(tree, 'show', ':b.txt')).toBe('b staged');
    expect(readFileSync(join(tree, 'b.txt'), 'utf8')).toBe('b staged then edited\n');
  });

  it('aborts a conflicting rebase and puts the worktree back exactly', async () => {
    const tip = baseMoves(3, 'landed on the same line');
    writeFileSync(join(tree, 'b.txt'), 'b staged\n');
    git(tree, 'add', 'b.txt');
    writeFileSync(join(tree, 'b.txt'), 'b staged then edited\n');
    writeFileSync(join(tree, 'loose.txt'), 'untracked\n');
    const before = state();

    const outcome = await rebaseWorktree(tree, tip);

    expect(outcome).toEqual({ kind: 'conflict', files: ['a.txt'], restored: true });
    expect(state()).toEqual(before);
    expect(await operationInProgress(tree)).toBeUndefined();
  });

  it('puts the worktree back when only the uncommitted work conflicts with the new base', async () => {
    const tip = baseMoves(18, 'landed');
    writeFileSync(join(tree, 'a.txt'), lines({ 3: 'session', 18: 'uncommitted edit' }));
    const before = state();

    const outcome = await rebaseWorktree(tree, tip);

    expect(outcome).toMatchObject({ kind: 'conflict', files: ['a.txt'] });
    expect(state()).toEqual(before);
  });

  it('moves back a stacked branch that --update-refs moved when the rebase stops', async () => {
    git(tree, 'branch', 'stacked-below', 'HEAD');
    writeFileSync(join(tree, 'c.txt'), 'c\n');
    git(tree, 'add', 'c.txt');
    git(tree, 'commit', '-qm', 'on top');
    const stacked = git(tree, 'rev-parse', 'stacked-below');
    const tip = baseMoves(3, 'landed on the same line');

    expect((await rebaseWorktree(tree, tip)).kind).toBe('conflict');
    expect(git(tree, 'rev-parse', 'stacked-below')).toBe(stacked);

    // And a clean one carries the stacked branch along.
    git(repo, 'reset', '-q', '--hard', 'HEAD^');
    const clean = baseMoves(15, 'landed');
    expect((await rebaseWorktree(tree, clean)).kind).toBe('rebased');
    expect(git(tree, 'rev-parse', 'stacked-below^')).toBe(clean);
  });

  it('leaves a branch someone else moved meanwhile where they put it when it puts the worktree back', async () => {
    const tip = baseMoves(18, 'landed');
    writeFileSync(join(tree, 'a.txt'), lines({ 3: 'session', 18: 'uncommitted edit' }));
    // The user's next commit on main (or a landing), made while the rebase runs: a filter of the
    // user's own settings moves main when the rebase first checks a.txt out.
    const next = git(repo, 'commit-tree', '-p', tip, '-m', 'the user commits on main', `${tip}^{tree}`);
    // And a stacked session's agent commits on its branch, which forked inside the rebased range.
    git(tree, 'branch', 'stacked', 'HEAD');
    const stackedNext = git(repo, 'commit-tree', '-p', 'stacked', '-m', 'stacked work', 'stacked^{tree}');
    const marker = join(root, 'moved');
    const attributes = join(root, 'attributes');
    writeFileSync(attributes, 'a.txt filter=mover\n');
    const mover = `[ -e '${marker}' ] || { touch '${marker}'; git --git-dir='${join(repo, '.git')}' update-ref refs/heads/main ${next}; git --git-dir='${join(repo, '.git')}' update-ref refs/heads/stacked ${stackedNext}; }; cat`;
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'core.attributesFile',
      GIT_CONFIG_VALUE_0: attributes,
      GIT_CONFIG_KEY_1: 'filter.mover.smudge',
      GIT_CONFIG_VALUE_1: mover,
    });
    let outcome;
    try {
      outcome = await rebaseWorktree(tree, tip);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    }

    expect(outcome).toMatchObject({ kind: 'conflict', files: ['a.txt'] });
    expect(readFileSync(marker, 'utf8')).toBe('');
    // The user's commit stays on main: only what the rebase itself moved is moved back.
    expect(git(repo, 'rev-parse', 'main')).toBe(next);
    expect(git(repo, 'rev-parse', 'stacked')).toBe(stackedNext);
  });

  it('refuses to start when an untracked file is in the way, and changes nothing', async () => {
    writeFileSync(join(repo, 'clash.txt'), 'from the base\n');
    git(repo, 'add', 'clash.txt');
    git(repo, 'commit', '-qm', 'base adds clash.txt');
    writeFileSync(join(tree, 'clash.txt'), 'the agent’s own, untracked\n');
    const before = state();

    const outcome = await rebaseWorktree(tree, git(repo, 'rev-parse', 'main'));

    expect(outcome.kind).not.toBe('rebased');
    expect(state()).toEqual(before);
  });

  it('never touches a worktree its agent left mid-rebase', async () => {
    const tip = baseMoves(3, 'landed on the same line');
    expect(() => git(tree, 'rebase', tip)).toThrow();
    const before = state();
    expect(await operationInProgress(tree)).toBe('rebase');

    expect(await rebaseWorktree(tree, tip)).toEqual({ kind: 'mid_operation', operation: 'rebase' });
    expect(state()).toEqual(before);
    expect(await operationInProgress(tree)).toBe('rebase');
  });
});
