/** The workspace bus from outside: its stored events, page by page (live ones come on `/api/stream`). */
import { z } from 'zod';
import { RelayedWorkspaceEvent } from '../events/workspace-relayed.js';
import { WorkspaceEvent } from '../events/workspace.js';
import { endpoint, type Table } from './endpoint.js';
import { intQuery } from './query.js';

export const WORKSPACE_EVENTS_PAGE_MAX = 1_000;

export const WorkspaceEventsQuery = z.object({
  after: intQuery('after', 0, Number.MAX_SAFE_INTEGER, 'a non-negative integer').describe(
    'Only events after this sequence number',
  ),
  limit: intQuery('limit', 1, WORKSPACE_EVENTS_PAGE_MAX).describe(
    `Events per page (default and most: ${WORKSPACE_EVENTS_PAGE_MAX})`,
  ),
  relayed: z
    .enum(['0', '1'], { error: (issue) => `"relayed" must be 0 or 1, got ${JSON.stringify(issue.input)}` })
    .optional()
    .transform((value) => value === '1')
    .describe("1 adds the other machines' events of a shared workspace (in `relayed`; the page counts both)"),
});
export const WorkspaceEventList = z.object({
  events: z.array(WorkspaceEvent),
  relayed: z
    .array(RelayedWorkspaceEvent)
    .optional()
    .describe("With ?relayed=1: the other machines' events in this page, each with its machine"),
  lastSeq: z.number().int(),
});

export const WORKSPACE = {
  'GET /api/workspace/events': endpoint({
    summary:
      'Workspace events (every domain, one global sequence) after ?after=N, oldest first; page on with the last seq',
    query: WorkspaceEventsQuery,
    response: WorkspaceEventList,
  }),
} satisfies Table;
