/** The workspace bus's stored events (the live ones are on `/api/stream`). */
import { WORKSPACE_EVENTS_PAGE_MAX, type WORKSPACE } from '../../api/workspace.js';
import type { WorkspaceBus } from '../../bus/index.js';
import type { Handlers } from './mount.js';

export function workspaceHandlers(bus: WorkspaceBus): Handlers<typeof WORKSPACE> {
  return {
    'GET /api/workspace/events': ({ query }) => ({ events: bus.list(query.after ?? 0, query.limit ?? WORKSPACE_EVENTS_PAGE_MAX), lastSeq: bus.lastSeq() }),
  };
}
