/** `baton events`: the workspace bus — what happened across sessions (and, later, tasks, merges, routines). */
import type { WorkspaceEvent } from '../../events/workspace.js';
import { InvalidInputError, SupervisorUnreachableError } from '../../shared/errors.js';
import type { SupervisorClient } from '../client.js';
import { client } from '../connect.js';
import type { Context } from '../context.js';

export async function events(ctx: Context, opts: { follow?: boolean; json?: boolean; after: string }): Promise<void> {
  let last = Number(opts.after);
  if (!Number.isInteger(last) || last < 0) throw new InvalidInputError(`--after must be a non-negative integer, got "${opts.after}"`);
  let api: SupervisorClient = await client(ctx);
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
  // A cut stream (a supervisor restart) is picked up again from the last event printed.
  for (let failures = 0; ; ) {
    try {
      await api.followWorkspace(last, (event) => {
        failures = 0;
        print(event);
      }, controller.signal);
      return;
    } catch (error) {
      if (controller.signal.aborted) return;
      if (!(error instanceof SupervisorUnreachableError) || ++failures > 3) throw error;
      ctx.err.write(`(${error.message} Reconnecting…)\n`);
      api = await client(ctx);
    }
  }
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
    case 'review.groups_changed':
      return `${event.data.project}: ${event.data.groups.map((g) => `${g.number}: ${g.sessions.join('+')}`).join(', ') || 'no groups'}`;
    case 'review.file_state_set':
      return `${event.data.project} group ${event.data.group}: ${event.data.path} ${event.data.state.replace(/_/g, ' ')}`;
    case 'review.file_state_reset':
      return `${event.data.project}: ${event.data.path} changed, no longer ${event.data.previous.replace(/_/g, ' ')}`;
    case 'review.comment_sent':
      return `${event.data.project} group ${event.data.group}: comment on ${event.data.path}:${event.data.startLine} sent to ${event.data.name}`;
  }
}
