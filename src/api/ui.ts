/** What the web dashboard reads besides sessions: the board's stream, the inbox, change counts, login codes. */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';
import { SessionView } from './index.js';
import { InboxView, LoginCodeView, StreamRemoved, StreamSnapshot } from './web.js';

export const ChangeCounts = z.object({ counts: z.record(z.string(), z.number().int()) });
export type ChangeCounts = z.infer<typeof ChangeCounts>;

export const UI = {
  'GET /api/stream': endpoint({
    summary: 'SSE: one `snapshot`, then `session` for each change and `removed` for each removal',
    sse: { snapshot: StreamSnapshot, session: SessionView, removed: StreamRemoved },
  }),
  'GET /api/inbox': endpoint({ summary: 'Sessions needing input, each with the events before its question', response: InboxView }),
  'GET /api/changes': endpoint({ summary: 'Files-changed count per live session id', response: ChangeCounts }),
  'POST /api/ui/login': endpoint({ summary: 'A one-time browser login URL (token only, not the cookie)', response: LoginCodeView, status: 201 }),
} satisfies Table;
