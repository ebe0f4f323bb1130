/** What the web dashboard reads besides sessions: the board's stream, the inbox, change counts, login codes. */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';
import { SessionView } from './index.js';
import { ReviewQueueView, WorkSizeView } from './sessions.js';
import { InboxView, LoginCodeView, StreamRemoved, StreamSnapshot } from './web.js';
import { RelayedWorkspaceEvent } from '../events/workspace-relayed.js';
import { WorkspaceEvent } from '../events/workspace.js';
import { intQuery } from './query.js';

export const StreamQuery = z.object({
  after: intQuery('after', 0, Number.MAX_SAFE_INTEGER, 'a non-negative integer').describe(
    'Replay workspace events after this sequence number first',
  ),
  sessions: z
    .string()
    .optional()
    .transform((value) => value !== '0' && value !== 'false')
    .describe(
      '0 leaves out the snapshot and the session messages (a client that wants workspace events only)',
    ),
});

export const ChangeCounts = z.object({
  counts: z.record(z.string(), z.number().int()).describe('Files changed per live session id'),
  sizes: z
    .record(z.string(), WorkSizeView)
    .describe('Files changed and lines added and deleted per live session id'),
  reviewQueue: ReviewQueueView,
});
export type ChangeCounts = z.infer<typeof ChangeCounts>;

export const UI = {
  'GET /api/stream': endpoint({
    summary:
      'SSE, the one live feed of the workspace: one `snapshot` of the sessions, then `session` for each change and `removed` for each removal; and `workspace` for each workspace event (every domain, one global sequence: replayed after ?after=N, else from now). In a shared workspace, `relayed` brings each event of another machine, with its machine, in the same sequence (one cursor). ?sessions=0 leaves the session messages out.',
    query: StreamQuery,
    sse: {
      snapshot: StreamSnapshot,
      session: SessionView,
      removed: StreamRemoved,
      workspace: WorkspaceEvent,
      relayed: RelayedWorkspaceEvent,
    },
  }),
  'GET /api/inbox': endpoint({
    summary: 'Sessions needing input, each with the events before its question',
    response: InboxView,
  }),
  'GET /api/changes': endpoint({
    summary: "The size of each live session's work against its base, and the review queue",
    response: ChangeCounts,
  }),
  'POST /api/ui/login': endpoint({
    summary: 'A one-time browser login URL (token only, not the cookie)',
    response: LoginCodeView,
    status: 201,
    tokenOnly: true,
  }),
} satisfies Table;
