/**
 * What Baton's MCP server (src/mcp) asks of the supervisor beyond the sessions' own endpoints:
 * who is calling, asking the user, messaging another session, search, and the decisions, notes
 * and tasks agents record. A session's credential may read workspace-wide and act only as itself.
 */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';
import { SessionView } from './index.js';
import { intQuery } from './query.js';

export const AgentAuthor = z
  .object({ sessionId: z.string().nullable(), name: z.string() })
  .describe('A session’s agent, or (sessionId null) an MCP client outside Baton');
export type AgentAuthor = z.infer<typeof AgentAuthor>;

export const CallerView = z.object({
  session: SessionView.nullable().describe(
    'The session whose credential made the call; null for the token (outside Baton)',
  ),
});
export type CallerView = z.infer<typeof CallerView>;

export const AskRequest = z.object({
  question: z.string().trim().min(1, 'the question is empty').max(8_000),
});
export const AskView = z.object({
  sessionId: z.string(),
  name: z.string(),
  after: z
    .number()
    .int()
    .describe(
      'The last event before the question: follow the session’s events after it for `question.answered`',
    ),
});
export type AskView = z.infer<typeof AskView>;

export const MessageRequest = z.object({
  to: z.string().trim().min(1, 'name the session to send to').describe('Session id, id prefix or name'),
  text: z.string().trim().min(1, 'the message is empty').max(32_000),
});
export const MessageView = z.object({
  to: SessionView,
  delivery: z
    .enum(['now', 'after_turn', 'after_answer'])
    .describe('Now (it was idle), when its running turn ends, or after its user answers its question'),
});
export type MessageView = z.infer<typeof MessageView>;

export const SearchQuery = z.object({
  q: z
    .string({ error: '"q" (what to search for) is required' })
    .trim()
    .min(2, '"q" must be at least 2 characters'),
  session: z.string().optional().describe('Only this session (id, id prefix or name)'),
  limit: intQuery('limit', 1, 100).describe('Hits (default 20)'),
});
export const SearchHit = z.object({
  sessionId: z.string(),
  name: z.string(),
  seq: z.number().int(),
  ts: z.string(),
  type: z.string(),
  snippet: z.string(),
});
export const SearchView = z.object({ query: z.string(), hits: z.array(SearchHit) });
export type SearchView = z.infer<typeof SearchView>;

export const DecisionRequest = z.object({
  title: z.string().trim().min(1, 'the decision needs a title').max(200),
  text: z.string().trim().min(1, 'say what was decided and why').max(32_000),
});
export const NoteRequest = z.object({ text: z.string().trim().min(1, 'the note is empty').max(32_000) });
export const TaskRequest = z.object({
  title: z.string().trim().min(1, 'the task needs a title').max(200),
  description: z.string().trim().max(32_000).default(''),
});
export const AgentRecordView = z.object({
  id: z.number().int().describe('The workspace event that holds it'),
  kind: z.enum(['decision', 'note', 'task']),
  ts: z.string(),
  author: AgentAuthor,
  project: z.string().nullable(),
  title: z.string(),
  text: z.string(),
});
export type AgentRecordView = z.infer<typeof AgentRecordView>;
export const AgentRecordList = z.object({ records: z.array(AgentRecordView) });
export const RecordsQuery = z.object({
  limit: intQuery('limit', 1, 500).describe('Newest first (default 100)'),
});

export const MCP = {
  'GET /api/mcp/me': endpoint({
    summary: 'The session a credential belongs to',
    response: CallerView,
    sessions: 'read',
  }),
  'POST /api/mcp/ask': endpoint({
    summary: 'The calling session asks its user: it needs input with this question until answered',
    body: AskRequest,
    response: AskView,
    sessions: 'own',
  }),
  'POST /api/mcp/messages': endpoint({
    summary: 'Send a message into another session’s next turn',
    body: MessageRequest,
    response: MessageView,
    status: 201,
    sessions: 'own',
  }),
  'GET /api/mcp/search': endpoint({
    summary: 'Messages, reasoning and tool calls of every session holding the words',
    query: SearchQuery,
    response: SearchView,
    sessions: 'read',
  }),
  'POST /api/mcp/decisions': endpoint({
    summary: 'Record a decision',
    body: DecisionRequest,
    response: AgentRecordView,
    status: 201,
    sessions: 'own',
  }),
  'POST /api/mcp/notes': endpoint({
    summary: 'Add a note',
    body: NoteRequest,
    response: AgentRecordView,
    status: 201,
    sessions: 'own',
  }),
  'POST /api/mcp/tasks': endpoint({
    summary: 'Create a task',
    body: TaskRequest,
    response: AgentRecordView,
    status: 201,
    sessions: 'own',
  }),
  'GET /api/mcp/tasks': endpoint({
    summary: 'The tasks on the board of the caller’s repository (every repository’s outside a session)',
    query: RecordsQuery,
    response: AgentRecordList,
    sessions: 'read',
  }),
  'GET /api/mcp/decisions': endpoint({
    summary: 'Decisions agents recorded, newest first',
    query: RecordsQuery,
    response: AgentRecordList,
    sessions: 'read',
  }),
} satisfies Table;
