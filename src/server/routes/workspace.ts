/** The workspace bus's stored events (the live ones are on `/api/stream`). */
import { WORKSPACE_EVENTS_PAGE_MAX, type WORKSPACE } from '../../api/workspace.js';
import { isRelayed, type WorkspaceBus } from '../../bus/index.js';
import type { RelayedWorkspaceEvent } from '../../events/workspace-relayed.js';
import type { WorkspaceEvent } from '../../events/workspace.js';
import type { Handlers } from './mount.js';

export function workspaceHandlers(bus: WorkspaceBus): Handlers<typeof WORKSPACE> {
  return {
    'GET /api/workspace/events': ({ query }) => {
      const after = query.after ?? 0;
      const limit = query.limit ?? WORKSPACE_EVENTS_PAGE_MAX;
      if (!query.relayed) return { events: bus.list(after, limit), lastSeq: bus.lastSeq() };
      const events: WorkspaceEvent[] = [];
      const relayed: RelayedWorkspaceEvent[] = [];
      for (const event of bus.listAll(after, limit)) {
        if (isRelayed(event)) relayed.push(event);
        else events.push(event);
      }
      return { events, relayed, lastSeq: bus.lastSeq() };
    },
  };
}
