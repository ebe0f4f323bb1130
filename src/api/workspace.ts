/** The workspace bus from outside: its stored events, page by page (live ones come on `/api/stream`). */
import { z } from 'zod';
import { WorkspaceEvent } from '../events/workspace.js';
import { endpoint, type Table } from './endpoint.js';
import { intQuery } from './query.js';

export const WORKSPACE_EVENTS_PAGE_MAX = 1_000;

export const WorkspaceEventsQuery = z.object({
  after: intQuery('after', 0, Number.MAX_SAFE_INTEGER, 'a non-negative integer').describe('Only events after this sequence number'),
  limit: intQuery('limit', 1, WORKSPACE_EVENTS_PAGE_MAX).describe(`Events per page (default and most: ${WORKSPACE_EVENTS_PAGE_MAX})`),
});
export const WorkspaceEventList = z.object({ events: z.array(WorkspaceEvent), lastSeq: z.number().int() });

export const WORKSPACE = {
  'GET /api/workspace/events': endpoint({
    summary: 'Workspace events (every domain, one global sequence) after ?after=N, oldest first; page on with the last seq',
    query: WorkspaceEventsQuery,
    response: WorkspaceEventList,
  }),
} satisfies Table;
