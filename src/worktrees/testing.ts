/**
 * For the worktrees domain's tests on real git (the rebase, the rewrites beside it): a repository
 * with one base commit and a session's worktree on a branch of its own. Not shipped (the package
 * leaves out `testing.*`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** A file of 20 numbered lines, with `change`'s lines (1-based) in place of theirs. */
export const lines = (change: Record<number, string> = {}): string =>
  Array.from({ length: 20 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/**
 * A fresh folder holding `repo` (branch main, `files` committed as `message`) and `tree`, a
 * worktree of it on a new branch `branch` from main. The caller removes `root`.
 */
export function repositoryWithWorktree(
  prefix: string,
  files: Record<string, string>,
  message: string,
  branch: string,
): { root: string; repo: string; tree: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const repo = join(root, 'repo');
  const tree = join(root, 'tree');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  for (const [path, content] of Object.entries(files)) writeFileSync(join(repo, path), content);
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', message);
  git(repo, 'worktree', 'add', '-q', '-b', branch, tree, 'main');
  return { root, repo, tree };
}
