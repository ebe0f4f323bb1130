/**
 * Carrying the main checkout's uncommitted changes (tracked and untracked, ignored files left
 * out) into a new worktree: the changes are read as a tree without touching the main checkout
 * (snapshot.ts), and the new worktree's files are brought to that tree with its index left at
 * HEAD, so the changes show as uncommitted work there too.
 */
import { git, gitOut } from './git.js';
import { snapshotWork, type WorkSnapshot } from './snapshot.js';

/** Files changed in the checkout (staged, unstaged, untracked), as `git status` counts them. */
export async function uncommittedCount(checkout: string): Promise<number> {
  const status = await gitOut(checkout, ['status', '--porcelain', '--untracked-files=all']);
  return status === '' ? 0 : status.split('\n').length;
}

export async function mainCheckoutWork(checkout: string): Promise<WorkSnapshot> {
  return snapshotWork(checkout);
}

/** Brings `worktree` (checked out at `work.head`) to the files of `work.tree`, index at HEAD. */
export async function applyWork(worktree: string, work: WorkSnapshot): Promise<void> {
  await git(worktree, ['read-tree', '-m', '-u', 'HEAD', work.tree]);
  // Unstaged again, as they were (or as new files are) in the main checkout.
  await git(worktree, ['reset', '--quiet']);
}
