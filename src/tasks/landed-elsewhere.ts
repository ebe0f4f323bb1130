/**
 * A task's prerequisite that landed on another machine of a shared workspace (decision 147): its
 * commit is on that machine's base, and on the remote once pushed. A session waiting for it here
 * starts on a base that has it — this machine's, else the remote's — and is held, saying why,
 * until one does. On one machine a landed commit is always on the base (or at least here, when
 * the base was reset since), so nothing changes there.
 */
import { fetchRemoteBranch } from '../sync/index.js';
import { git } from '../worktrees/index.js';

export interface Landed {
  taskId: number;
  title: string;
  commit: string;
}

const LOCAL_MS = 30_000;

/** The tip to start on, or why the session waits. */
export async function baseWithLanded(
  root: string,
  baseRef: string,
  localTip: string,
  landed: readonly Landed[],
): Promise<{ tip: string } | { waiting: string }> {
  const missing: Landed[] = [];
  for (const l of landed) if (!(await contains(root, localTip, l.commit))) missing.push(l);
  if (missing.length === 0) return { tip: localTip };
  const remoteTip = await fetchRemoteBranch(root, baseRef);
  if (remoteTip !== undefined) {
    let all = true;
    for (const l of missing) all &&= await contains(root, remoteTip, l.commit);
    if (all) return { tip: remoteTip };
  }
  // A commit this machine has is no other machine's landing: the base was moved since (as on one machine).
  const elsewhere: Landed[] = [];
  for (const l of missing) if (!(await known(root, l.commit))) elsewhere.push(l);
  if (elsewhere.length === 0) return { tip: localTip };
  const which = elsewhere.map((l) => `task ${l.taskId} (${l.title}) at ${l.commit.slice(0, 12)}`).join(', ');
  return {
    waiting: `after ${which}, landed on another machine: not on ${baseRef} here or on the remote yet (push it there)`,
  };
}

async function contains(root: string, tip: string, commit: string): Promise<boolean> {
  return (
    (
      await git(root, ['merge-base', '--is-ancestor', commit, tip], {
        okExitCodes: [1, 128],
        timeoutMs: LOCAL_MS,
      })
    ).exitCode === 0
  );
}

async function known(root: string, commit: string): Promise<boolean> {
  return (
    (
      await git(root, ['cat-file', '-e', `${commit}^{commit}`], {
        okExitCodes: [1, 128],
        timeoutMs: LOCAL_MS,
      })
    ).exitCode === 0
  );
}
