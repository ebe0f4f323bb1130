/** A session's history: its events (as a list or a live stream), transcript pages, usage and diff. */
import { z } from 'zod';
import { BatonEvent } from '../events/index.js';
import { endpoint, type Table } from './endpoint.js';
import { flagQuery, intQuery } from './query.js';
import { TRANSCRIPT_PAGE_MAX, TranscriptPage, UsageView } from './web.js';

export const EventList = z.object({ events: z.array(BatonEvent) });
export type EventList = { events: BatonEvent[] };
export const LiveMarker = z.object({ seq: z.number().int() });
export const StreamEnded = z
  .object({ reason: z.enum(['completed', 'removed']) })
  .describe('The session will write nothing more; the stream ends');

export const EventsQuery = z.object({
  after: intQuery('after', 0, Number.MAX_SAFE_INTEGER, 'a non-negative integer').describe(
    'Only events after this seq',
  ),
  follow: flagQuery.describe(
    'Answer with an SSE stream: the events after `after` (`event`), one `live`, then new events',
  ),
});
export const TranscriptQuery = z.object({
  limit: intQuery('limit', 1, TRANSCRIPT_PAGE_MAX).describe('Events per page (default 300)'),
  before: intQuery('before', 1, Number.MAX_SAFE_INTEGER).describe(
    'Only events before this seq (default: the newest)',
  ),
});

export const FileStat = z.object({
  path: z.string(),
  status: z.string().describe('A added, M modified, D deleted, T type changed'),
  additions: z.number().int(),
  deletions: z.number().int(),
  binary: z.boolean(),
});
export const DiffStatView = z.object({
  session: z.string().describe('The session name'),
  branch: z.string(),
  baseRef: z.string(),
  baseCommit: z.string(),
  files: z.array(FileStat),
  additions: z.number().int(),
  deletions: z.number().int(),
});
export type DiffStatView = z.infer<typeof DiffStatView>;

export const HISTORY = {
  'GET /api/sessions/:ref/events': endpoint({
    summary:
      'Events after ?after=N; with ?follow=1 an SSE replay then live, ending with `ended` once the session is completed or removed',
    query: EventsQuery,
    response: EventList,
    sse: { event: BatonEvent, live: LiveMarker, ended: StreamEnded },
    sessions: 'read',
  }),
  'GET /api/sessions/:ref/transcript': endpoint({
    summary: 'A bounded page of events, newest last',
    query: TranscriptQuery,
    response: TranscriptPage,
    sessions: 'read',
  }),
  'GET /api/sessions/:ref/usage': endpoint({
    summary: 'Token and cost running totals per usage report',
    response: UsageView,
  }),
  'GET /api/sessions/:ref/diff': endpoint({
    summary:
      'Unified diff of the worktree against the base, untracked files included (header x-baton-diff-truncated: 1 when cut)',
    text: 'text/x-diff',
  }),
  'GET /api/sessions/:ref/diffstat': endpoint({
    summary:
      'Files changed against the base, uncommitted and untracked included, with added and deleted line counts',
    response: DiffStatView,
  }),
} satisfies Table;
