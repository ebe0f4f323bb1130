/**
 * A session's change as one unified diff against its base: its whole work (committed, staged,
 * unstaged and untracked) snapshotted as one tree, then one `git diff <base> <tree>`. Read-only:
 * neither the worktree's index nor its files are touched.
 */
import { existsSync } from 'node:fs';
import { git } from './git.js';
import { snapshotWork } from './snapshot.js';

/** Past this, the viewer would choke long before the reader does. */
const MAX_DIFF_BYTES = 4 * 1024 * 1024;

export interface WorktreeDiff {
  text: string;
  truncated: boolean;
}

export async function worktreeDiff(worktree: string, baseCommit: string): Promise<WorktreeDiff> {
  if (!existsSync(worktree)) return { text: '', truncated: false };
  let diff: { stdout: string };
  try {
    const { tree } = await snapshotWork(worktree);
    diff = await git(worktree, [
      'diff',
      '--no-color',
      '--no-ext-diff',
      '--no-renames',
      baseCommit,
      tree,
      '--',
    ]);
  } catch (error) {
    // Removed while we read it: no work left to show.
    if (!existsSync(worktree)) return { text: '', truncated: false };
    throw error;
  }
  let text = diff.stdout;
  let truncated = false;
  if (text.length > MAX_DIFF_BYTES) {
    text = text.slice(0, text.lastIndexOf('\ndiff --git ', MAX_DIFF_BYTES) + 1 || MAX_DIFF_BYTES);
    truncated = true;
  }
  return { text, truncated };
}
