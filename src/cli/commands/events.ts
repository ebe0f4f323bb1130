/** `baton events`: the workspace bus — what happened across sessions (and, later, tasks, merges, routines). */
import type { WorkspaceEvent } from '../../events/workspace.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { followWorkspace } from '../follow.js';
import type { Context } from '../context.js';

export async function events(ctx: Context, opts: { follow?: boolean; json?: boolean; after: string }): Promise<void> {
  let last = Number(opts.after);
  if (!Number.isInteger(last) || last < 0) throw new InvalidInputError(`--after must be a non-negative integer, got "${opts.after}"`);
  const api = await client(ctx);
  const print = (event: WorkspaceEvent): void => {
    last = event.seq;
    ctx.out.write((opts.json ? JSON.stringify(event) : formatWorkspaceEvent(event)) + '\n');
  };
  if (!opts.follow) {
    // Paged, so a long history is printed whole.
    for (;;) {
      const page = await api.call('GET /api/workspace/events', { query: { after: last } });
      page.events.forEach(print);
      if (page.events.length === 0 || last >= page.lastSeq) return;
    }
  }
  ctx.keepAlive = true;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  await followWorkspace(ctx, api, () => last, print, controller.signal);
}

/** One line for people: sequence, time, what happened. */
export function formatWorkspaceEvent(event: WorkspaceEvent): string {
  const time = event.ts.slice(11, 19);
  return `${String(event.seq).padStart(5)} ${time} ${event.type.padEnd(22)} ${describe(event)}`;
}

function describe(event: WorkspaceEvent): string {
  switch (event.type) {
    case 'session.dispatched':
      return `${event.data.name} (${event.data.agent}) on ${event.data.branch}`;
    case 'session.state_changed':
      return `${event.data.name}: ${event.data.from === undefined ? '' : `${event.data.from.replace(/_/g, ' ')} → `}${event.data.to.replace(/_/g, ' ')}`;
    case 'session.pinned':
      return `${event.data.name} ${event.data.pinned ? 'pinned' : 'unpinned'}`;
    case 'session.removed':
      return `${event.data.name} removed${event.data.snapshotRef === null ? '' : `; uncommitted work kept in ${event.data.snapshotRef}`}`;
    case 'radar.conflict_found':
      return `${event.data.a.name} ↔ ${event.data.b.name}: ${event.data.level} (${event.data.files.join(', ')})`;
    case 'radar.conflict_changed':
      return `${event.data.a.name} ↔ ${event.data.b.name}: ${event.data.previous} → ${event.data.level} (${event.data.files.join(', ')})`;
    case 'radar.conflict_cleared':
      return `${event.data.a.name} ↔ ${event.data.b.name}: cleared (${event.data.reason})`;
    case 'merge.queued':
      return `${members(event.data.sessions)} → ${event.data.base}: queued at position ${event.data.position}`;
    case 'merge.started':
      return `${members(event.data.sessions)} → ${event.data.base}: merging onto ${event.data.baseCommit.slice(0, 12)}`;
    case 'merge.checking':
      return `${members(event.data.sessions)}: checking \`${event.data.command}\``;
    case 'merge.landed':
      return `${members(event.data.sessions)} landed on ${event.data.base} at ${event.data.commit.slice(0, 12)} (check: ${event.data.check.outcome.replace(/_/g, ' ')})`;
    case 'merge.conflicted':
      return `${members(event.data.sessions)}: ${event.data.culprit.name} conflicts in ${event.data.files.join(', ')}`;
    case 'merge.failed':
      return `${members(event.data.sessions)} not landed: ${event.data.message}`;
    case 'pr.pushed':
      return `${event.data.name}: pushed ${event.data.branch} to ${event.data.remote}`;
    case 'pr.opened':
      return `${event.data.name}: pull request ${event.data.url ?? `(open it by hand for ${event.data.branch})`}`;
    case 'review.groups_changed':
      return `${event.data.project}: ${event.data.groups.map((g) => `${g.number}: ${g.sessions.join('+')}`).join(', ') || 'no groups'}`;
    case 'review.file_state_set':
      return `${event.data.project} group ${event.data.group}: ${event.data.path} ${event.data.state.replace(/_/g, ' ')}`;
    case 'review.file_state_reset':
      return `${event.data.project}: ${event.data.path} changed, no longer ${event.data.previous.replace(/_/g, ' ')}`;
    case 'review.comment_sent':
      return `${event.data.project} group ${event.data.group}: comment on ${event.data.path}:${event.data.startLine} sent to ${event.data.name}`;
    case 'attempt.started':
      return `${event.data.kind === 'best_of' ? 'best-of' : 'fan-out'} ${event.data.groupId}: ${members(event.data.sessions)}`;
    case 'attempt.picked':
      return `${event.data.groupId}: picked ${event.data.winner.name} (merge ${event.data.mergeId})`;
    case 'attempt.settled':
      return `${event.data.groupId}: ${event.data.message}`;
    case 'attempt.batch_retried':
      return `${event.data.groupId} batch ${event.data.batch}: ${event.data.failed.name} failed, retried as ${event.data.retry.name}`;
    case 'attempt.fanout_finished':
      return `${event.data.groupId}: ${event.data.done} of ${event.data.batches} batches done, ${event.data.failed} failed`;
  }
}

function members(sessions: { name: string }[]): string {
  return sessions.map((s) => s.name).join(', ');
}
