/**
 * A session's change as one unified diff against its base: committed, staged and unstaged work
 * (`git diff <base>`), then each untracked file as a new file. Read-only: neither the worktree's
 * index nor its files are touched.
 */
import { existsSync } from 'node:fs';
import { git, gitOut } from './git.js';

/** Past this, the viewer would choke long before the reader does. */
const MAX_DIFF_BYTES = 4 * 1024 * 1024;
const MAX_UNTRACKED = 200;

export interface WorktreeDiff {
  text: string;
  truncated: boolean;
}

export async function worktreeDiff(worktree: string, baseCommit: string): Promise<WorktreeDiff> {
  if (!existsSync(worktree)) return { text: '', truncated: false };
  const [tracked, untrackedList] = await Promise.all([
    git(worktree, ['diff', '--no-color', '--no-ext-diff', baseCommit, '--']),
    gitOut(worktree, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  const parts = [tracked.stdout];
  let size = tracked.stdout.length;
  const untracked = untrackedList.split('\0').filter(Boolean);
  let truncated = untracked.length > MAX_UNTRACKED;
  for (const path of untracked.slice(0, MAX_UNTRACKED)) {
    if (size > MAX_DIFF_BYTES) {
      truncated = true;
      break;
    }
    // --no-index exits 1 when the files differ, which for /dev/null against a new file is always.
    const added = await git(worktree, ['diff', '--no-color', '--no-ext-diff', '--no-index', '--', '/dev/null', path], { okExitCodes: [1] });
    parts.push(added.stdout);
    size += added.stdout.length;
  }
  let text = parts.filter(Boolean).join('');
  if (text.length > MAX_DIFF_BYTES) {
    text = text.slice(0, text.lastIndexOf('\ndiff --git ', MAX_DIFF_BYTES) + 1 || MAX_DIFF_BYTES);
    truncated = true;
  }
  return { text, truncated };
}
