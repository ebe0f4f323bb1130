/**
 * After a start: the merges a killed supervisor left unfinished in the journal (decision 166),
 * each reconciled with what its base branch shows. The base holds the checked commit: the merge
 * landed, so the landing is finished — its sessions completed and their worktrees removed (a
 * snapshot kept of anything left), `merge.landed` published, the result recorded. It does not:
 * nothing was landed (the base only moves as the merge's last git step), so the merge ends as
 * failed, saying where it stopped and how to run it again.
 */
import type { MergeResult } from '../api/merge.js';
import type { MergeCheckOutcome } from '../events/workspace.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { MergeJournalRow } from '../store/merge-journal.js';
import type { SessionWithProject } from '../store/sessions.js';
import { branchTip, isAncestor } from './git.js';
import { NO_CHECK } from './bisect.js';
import type { MergeSessions } from './sessions.js';
import { git } from '../worktrees/index.js';
import type { z } from 'zod';

const log = createLogger('merge');

type Check = z.infer<typeof MergeCheckOutcome>;

/** What a journaled merge turned out to be, and the result to record and announce. */
export type Reconciled =
  | { kind: 'landed'; result: MergeResult; members: SessionWithProject[] }
  | { kind: 'not_landed'; result: MergeResult };

const STEP_WORDS: Record<string, string> = {
  queued: 'while it waited in the queue',
  merging: 'while it merged and checked',
  checked: 'after the check, before the base moved',
  advanced: 'after the base moved',
};

/** Whether the journaled merge's checked commit is on its base, and the result it ends with. */
export async function reconcile(
  row: MergeJournalRow,
  sessions: MergeSessions,
  now: Date,
): Promise<Reconciled> {
  const members = JSON.parse(row.sessions_json) as { sessionId: string; name: string }[];
  const names = members.map((m) => m.name).join(', ');
  const ref = {
    mergeId: row.merge_id,
    project: row.project,
    base: row.base,
    sessions: members,
    squash: row.squash === 1,
  };
  const common = {
    ...ref,
    durationMs: Math.max(0, now.getTime() - Date.parse(row.queued_at)),
    finishedAt: now.toISOString(),
    files: [] as string[],
    culprit: null,
    replied: false,
  };
  let landed = false;
  let unreadable: string | undefined;
  if (row.commit !== null && (row.step === 'checked' || row.step === 'advanced')) {
    try {
      const tip = await branchTip(row.root, row.base);
      landed = tip !== undefined && (await isAncestor(row.root, row.commit, tip));
    } catch (error) {
      unreadable = errorMessage(error);
    }
  }
  const when = STEP_WORDS[row.step] ?? `at its step "${row.step}"`;
  if (landed && row.commit !== null) {
    const check = row.check_json === null ? NO_CHECK : (JSON.parse(row.check_json) as Check);
    const rows = members
      .map((m) => sessions.get(m.sessionId))
      .filter((s): s is SessionWithProject => s !== undefined);
    return {
      kind: 'landed',
      members: rows,
      result: {
        ...common,
        outcome: 'landed',
        reason: 'landed',
        message: `Landed ${names} on ${row.base} at ${row.commit.slice(0, 12)}; the supervisor stopped ${when}, and the landing was finished when it started again.`,
        commit: row.commit,
        previous: row.previous,
        check,
        checkoutUpdated: row.checkout,
      },
    };
  }
  const why =
    unreadable === undefined
      ? `nothing was landed (${row.base} is where it was) and its scratch worktree was removed`
      : `its repository could not be read (${unreadable}), so nothing more was done`;
  return {
    kind: 'not_landed',
    result: {
      ...common,
      outcome: 'failed',
      reason: 'error',
      message: `The supervisor stopped ${when}; ${why}. Merge again: baton merge ${members.map((m) => m.name).join(' ')}.`,
      commit: null,
      previous: null,
      check: NO_CHECK,
      checkoutUpdated: null,
    },
  };
}

/**
 * A landed session: completed, its worktree removed (a snapshot kept of anything left), its
 * branch deleted once in the base's history. After a restart (`recovering`) each part is skipped
 * when already done, so the landing finishes only what the killed one had not; in a landing
 * under way every part is asked for, so another machine's session is handed back through its
 * own `done` (which may keep it there and say why).
 */
export async function retire(
  sessions: MergeSessions,
  member: SessionWithProject,
  landed: string,
  recovering = false,
): Promise<void> {
  try {
    const current = recovering ? (sessions.get(member.id) ?? member) : member;
    if (current.removed_at === null) {
      if (!recovering || current.state !== 'completed') await sessions.done(member.id);
      await sessions.remove(member.id);
    }
    const tip = await branchTip(member.project_root, member.branch);
    if (tip !== undefined && (await isAncestor(member.project_root, tip, landed))) {
      await git(member.project_root, ['branch', '--quiet', '-D', '--', member.branch]);
    }
  } catch (error) {
    log.error('landed session not cleaned up', { session: member.name, error: errorMessage(error) });
  }
}
