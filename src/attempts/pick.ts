/**
 * Picking the winner of a best-of group: its work goes through the merge queue (checked, then
 * landed on the base), and only once it has landed are the other attempts archived — removed the
 * way `baton rm` removes a session, which keeps uncommitted work in a snapshot ref and commits on
 * the branch, so `baton restore` brings any of them back. A merge that does not land archives
 * nothing: the group stays open to pick again.
 */
import type { MergeResult } from '../api/merge.js';
import type { WorkspaceBus } from '../bus/index.js';
import { AttemptPicked, AttemptSettled } from '../events/workspace.js';
import type { MergeService } from '../merge/index.js';
import { errorMessage, InvalidInputError, SessionStateError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { AttemptGroupWithProject, AttemptStore } from '../store/attempts.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { AttemptSessions } from './sessions.js';

const log = createLogger('attempts');

export interface PickDeps {
  store: AttemptStore;
  sessions: AttemptSessions;
  bus: WorkspaceBus;
  merges: () => Pick<MergeService, 'enqueue'>;
  /** Saves each attempt's comparison figures, so archived attempts keep showing them. */
  keepFigures: (group: AttemptGroupWithProject) => Promise<void>;
}

/** Which group `session` is an attempt of, refusing a session outside `group` (when named) or outside any best-of group. */
export function groupOfPick(
  deps: Pick<PickDeps, 'store'>,
  session: SessionWithProject,
  group: AttemptGroupWithProject | undefined,
): AttemptGroupWithProject {
  const member = deps.store.memberOf(session.id);
  const own = member === undefined ? undefined : deps.store.get(member.group_id);
  if (group !== undefined && own?.id !== group.id) {
    throw new InvalidInputError(
      `${session.name} is not an attempt of group ${group.id}; \`baton attempts show ${group.id}\` lists its attempts.`,
      { reason: 'not_in_group' },
    );
  }
  if (own === undefined)
    throw new InvalidInputError(
      `${session.name} is not an attempt of any best-of group; \`baton attempts ls\` lists the groups.`,
      { reason: 'not_in_group' },
    );
  if (own.kind !== 'best_of')
    throw new InvalidInputError(
      `${session.name} is a batch of fan-out ${own.id}, not an attempt to pick; land batches with \`baton merge\`.`,
      { reason: 'not_in_group' },
    );
  return own;
}

export async function pick(
  deps: PickDeps,
  group: AttemptGroupWithProject,
  winner: SessionWithProject,
  cwd: string | undefined,
): Promise<{ mergeId: string; seq: number }> {
  if (group.state === 'picking')
    throw new SessionStateError(
      `Group ${group.id} is already landing ${nameOf(deps, group.picked_session_id)} (merge ${group.merge_id ?? ''}); wait for it.`,
    );
  if (group.state === 'landed')
    throw new SessionStateError(
      `Group ${group.id} has already landed ${nameOf(deps, group.picked_session_id)}; its other attempts are archived.`,
    );
  // Before the merge: a landed winner's worktree is removed, and its figures with it.
  await deps.keepFigures(group);
  const { view, result } = await deps.merges().enqueue([winner.id], { squash: false, cwd });
  deps.store.setState(group.id, 'picking', {
    picked_session_id: winner.id,
    merge_id: view.mergeId,
    message: null,
  });
  const event = deps.bus.publish(AttemptPicked, {
    groupId: group.id,
    project: group.project_name,
    taskId: group.task_id,
    winner: { sessionId: winner.id, name: winner.name },
    mergeId: view.mergeId,
  });
  result
    .then((outcome) => settle(deps, group.id, winner, outcome))
    .catch((error: unknown) =>
      log.error('attempt pick not settled', { group: group.id, error: errorMessage(error) }),
    );
  return { mergeId: view.mergeId, seq: event.seq };
}

/** After the winner's merge: the others archived when it landed; the group open again when not. */
export async function settle(
  deps: Pick<PickDeps, 'store' | 'sessions' | 'bus'>,
  groupId: string,
  winner: SessionWithProject,
  outcome: Pick<MergeResult, 'outcome' | 'message'>,
): Promise<void> {
  const group = deps.store.get(groupId);
  if (group === undefined) return;
  const ref = {
    groupId,
    project: group.project_name,
    taskId: group.task_id,
    winner: { sessionId: winner.id, name: winner.name },
  };
  if (outcome.outcome !== 'landed') {
    deps.store.setState(groupId, 'pick_failed', { message: outcome.message });
    deps.bus.publish(AttemptSettled, {
      ...ref,
      outcome: 'not_landed',
      message: `${winner.name} did not land: ${outcome.message} Nothing was archived; pick again when it is fixed.`,
      archived: [],
    });
    return;
  }
  const archived = await archiveOthers(deps, groupId, winner.id);
  const message = `${winner.name} landed; ${archived.length === 0 ? 'no other attempt was left' : `archived ${archived.map((a) => a.name).join(', ')} with their work kept`}.`;
  deps.store.setState(groupId, 'landed', { message });
  deps.bus.publish(AttemptSettled, { ...ref, outcome: 'landed', message, archived });
}

async function archiveOthers(
  deps: Pick<PickDeps, 'store' | 'sessions'>,
  groupId: string,
  winnerId: string,
): Promise<{ sessionId: string; name: string; snapshotRef: string | null; branch: string }[]> {
  const archived = [];
  for (const member of deps.store.members(groupId)) {
    const session = deps.sessions.get(member.session_id);
    if (member.session_id === winnerId || session === undefined || session.removed_at !== null) continue;
    try {
      const { result } = await deps.sessions.remove(session.id);
      deps.store.markArchived(session.id, result.snapshotRef ?? null);
      archived.push({
        sessionId: session.id,
        name: session.name,
        snapshotRef: result.snapshotRef ?? null,
        branch: session.branch,
      });
    } catch (error) {
      log.error('attempt not archived', { session: session.name, error: errorMessage(error) });
    }
  }
  return archived;
}

/**
 * After a restart, a pick the last supervisor left midway: a winner that landed (its session
 * removed by the merge) gets its group settled; otherwise the merge was lost with the supervisor
 * (the queue is in memory), and the group is open to pick again.
 */
export async function resumePicks(deps: Pick<PickDeps, 'store' | 'sessions' | 'bus'>): Promise<void> {
  for (const group of deps.store.inStates(['picking'])) {
    const winner = group.picked_session_id === null ? undefined : deps.sessions.get(group.picked_session_id);
    if (winner === undefined) continue;
    const landed = winner.removed_at !== null;
    await settle(
      deps,
      group.id,
      winner,
      landed
        ? { outcome: 'landed', message: '' }
        : { outcome: 'failed', message: 'The supervisor restarted while it merged.' },
    );
  }
}

function nameOf(deps: Pick<PickDeps, 'sessions'>, id: string | null): string {
  return (id === null ? undefined : deps.sessions.get(id)?.name) ?? 'its pick';
}
