/**
 * Provenance told of a landing (src/provenance notes on the landed commits which session's turn
 * wrote which lines): the landing made into what it needs, from a merge that just landed or from
 * one a killed supervisor left unfinished. What it cannot do is logged, never the merge's failure.
 */
import type { MergeView } from '../api/merge.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { MergeJournalRow } from '../store/merge-journal.js';
import type { SessionWithProject } from '../store/sessions.js';
import { git } from '../worktrees/index.js';
import { branchTip } from './git.js';
import type { RunOutcome } from './land.js';

const log = createLogger('merge');

/** A landing as provenance needs it: the base's move, and each member's tip and what became of it. */
export interface LandedWork {
  root: string;
  project: string;
  previous: string;
  commit: string;
  squash: boolean;
  members: { session: SessionWithProject; tip: string; head: string }[];
}

/** Tells provenance of a landing (it notes the landed commits); what it cannot do is logged, never the merge's failure. */
export async function noteLanding(
  onLanded: ((landing: LandedWork) => Promise<void>) | undefined,
  view: MergeView,
  members: SessionWithProject[],
  outcome: Extract<RunOutcome, { kind: 'landed' }>,
): Promise<void> {
  if (onLanded === undefined) return;
  try {
    await onLanded({
      root: view.root,
      project: view.project,
      previous: outcome.previous,
      commit: outcome.commit,
      squash: view.squash,
      members: members.map((session, index) => ({
        session,
        tip: outcome.landedMembers[index]?.tip ?? outcome.commit,
        head: outcome.landedMembers[index]?.head ?? outcome.commit,
      })),
    });
  } catch (error) {
    log.warn('the landing was not noted with its provenance', {
      mergeId: view.mergeId,
      error: errorMessage(error),
    });
  }
}

/**
 * Notes the commits of a landing a killed supervisor left unfinished. The members' tips are their
 * branches (not yet deleted: retiring comes after); what each member's step made is read off the
 * base's first-parent line from the previous tip, one commit per member for a merge commit or a
 * squash; a lone member's is the landed commit. A note already there is written again, the same.
 */
export async function noteRecovered(
  onLanded: ((landing: LandedWork) => Promise<void>) | undefined,
  row: MergeJournalRow,
  members: SessionWithProject[],
  commit: string,
): Promise<void> {
  if (onLanded === undefined || row.previous === null || members.length === 0) return;
  try {
    const line = (
      await git(row.root, ['rev-list', '--first-parent', '--reverse', `${row.previous}..${commit}`])
    ).stdout
      .split('\n')
      .filter(Boolean);
    const heads = members.length > 1 && line.length === members.length ? line : members.map(() => commit);
    const tips = await Promise.all(members.map((m) => branchTip(row.root, m.branch)));
    await onLanded({
      root: row.root,
      project: row.project,
      previous: row.previous,
      commit,
      squash: row.squash === 1,
      members: members.map((session, index) => ({
        session,
        tip: tips[index] ?? heads[index]!,
        head: heads[index]!,
      })),
    });
  } catch (error) {
    log.warn('the recovered landing was not noted with its provenance', {
      mergeId: row.merge_id,
      error: errorMessage(error),
    });
  }
}
