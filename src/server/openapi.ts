/**
 * The OpenAPI 3.1 document of the supervisor's API, generated from the same zod schemas that
 * validate requests and type the CLI and the UI, so it cannot drift from them.
 */
import { z } from 'zod';
import { ApprovalRequest, DispatchRequest, PinRequest, ReplyRequest, RespawnAllRequest, SessionView } from '../api/index.js';
import { InboxView, LoginCodeView, StreamRemoved, StreamSnapshot, TranscriptPage, UsageView } from '../api/web.js';
import { BatonEvent } from '../events/index.js';
import { VERSION } from './version.js';

const SCHEMAS = {
  DispatchRequest,
  ReplyRequest,
  ApprovalRequest,
  PinRequest,
  RespawnAllRequest,
  SessionView,
  BatonEvent,
  InboxView,
  TranscriptPage,
  UsageView,
  LoginCodeView,
  StreamSnapshot,
  StreamRemoved,
  SessionEnvelope: z.object({ session: SessionView }),
  SessionList: z.object({ sessions: z.array(SessionView) }),
  ChangeCounts: z.object({ counts: z.record(z.string(), z.number().int()) }),
  EventList: z.object({ events: z.array(BatonEvent) }),
  Error: z.object({ error: z.object({ code: z.string(), message: z.string(), data: z.record(z.string(), z.unknown()).optional() }) }),
} as const;
type SchemaName = keyof typeof SCHEMAS;

const REQUEST_BODIES = new Set<SchemaName>(['DispatchRequest', 'ReplyRequest', 'ApprovalRequest', 'PinRequest', 'RespawnAllRequest']);

interface Route {
  method: 'get' | 'post' | 'delete';
  path: string;
  summary: string;
  body?: SchemaName;
  response?: SchemaName | 'sse' | 'diff' | 'any';
}

const ref = ':ref';
const ROUTES: Route[] = [
  { method: 'get', path: '/api/health', summary: 'Liveness', response: 'any' },
  { method: 'get', path: '/api/daemon', summary: 'Supervisor status', response: 'any' },
  { method: 'post', path: '/api/daemon/stop', summary: 'Stop the supervisor (sessions keep running)', response: 'any' },
  { method: 'get', path: '/api/sessions', summary: 'Live sessions (optionally ?project=root-or-name)', response: 'SessionList' },
  { method: 'post', path: '/api/sessions', summary: 'Dispatch a session', body: 'DispatchRequest', response: 'SessionEnvelope' },
  { method: 'post', path: '/api/sessions/respawn-all', summary: 'Respawn every failed or stopped session', body: 'RespawnAllRequest', response: 'SessionList' },
  { method: 'get', path: `/api/sessions/${ref}`, summary: 'One session by id, id prefix or name', response: 'SessionEnvelope' },
  { method: 'get', path: `/api/sessions/${ref}/peek`, summary: 'What the session is doing now', response: 'any' },
  { method: 'get', path: `/api/sessions/${ref}/events`, summary: 'Events after ?after=N; with ?follow=1 an SSE replay then live (event `event`, then one `live`)', response: 'EventList' },
  { method: 'get', path: `/api/sessions/${ref}/transcript`, summary: 'A bounded page of events: ?limit=N (≤ 2000) before ?before=SEQ', response: 'TranscriptPage' },
  { method: 'get', path: `/api/sessions/${ref}/usage`, summary: 'Token and cost running totals per usage report', response: 'UsageView' },
  { method: 'get', path: `/api/sessions/${ref}/diff`, summary: 'Unified diff of the worktree against the base, untracked files included', response: 'diff' },
  { method: 'post', path: `/api/sessions/${ref}/reply`, summary: 'Answer a question or send a follow-up', body: 'ReplyRequest', response: 'SessionEnvelope' },
  { method: 'post', path: `/api/sessions/${ref}/approval`, summary: 'Allow or deny the pending tool call', body: 'ApprovalRequest', response: 'SessionEnvelope' },
  { method: 'post', path: `/api/sessions/${ref}/interrupt`, summary: 'End the current turn', response: 'SessionEnvelope' },
  { method: 'post', path: `/api/sessions/${ref}/stop`, summary: 'Stop the agent', response: 'SessionEnvelope' },
  { method: 'post', path: `/api/sessions/${ref}/respawn`, summary: 'Restart in the same worktree', response: 'SessionEnvelope' },
  { method: 'post', path: `/api/sessions/${ref}/done`, summary: 'Mark completed', response: 'SessionEnvelope' },
  { method: 'post', path: `/api/sessions/${ref}/pin`, summary: 'Pin or unpin', body: 'PinRequest', response: 'SessionEnvelope' },
  { method: 'delete', path: `/api/sessions/${ref}`, summary: 'Remove the session and its worktree (uncommitted work kept in a ref)', response: 'any' },
  { method: 'get', path: '/api/changes', summary: 'Files-changed count per live session id', response: 'ChangeCounts' },
  { method: 'get', path: '/api/inbox', summary: 'Sessions needing input, each with the events before its question', response: 'InboxView' },
  { method: 'get', path: '/api/stream', summary: 'SSE: `snapshot` (StreamSnapshot), then `session` (SessionView) and `removed` (StreamRemoved)', response: 'sse' },
  { method: 'post', path: '/api/ui/login', summary: 'A one-time browser login URL (token only, not the cookie)', response: 'LoginCodeView' },
];

export function openApiDocument(): object {
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const json: Record<string, unknown> = z.toJSONSchema(schema, { io: REQUEST_BODIES.has(name as SchemaName) ? 'input' : 'output', unrepresentable: 'any' });
    // The dialect is the document's (OpenAPI 3.1), not each schema's.
    delete json.$schema;
    schemas[name] = json;
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const path = route.path.replace(':ref', '{ref}');
    (paths[path] ??= {})[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Baton supervisor API',
      version: VERSION,
      description: 'Loopback only. Authenticate with `Authorization: Bearer <$BATON_HOME/token>`, or from a browser with the cookie `baton ui` sets (non-GET requests must then carry the page Origin).',
    },
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'baton_<port>' },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}

function operation(route: Route): Record<string, unknown> {
  const op: Record<string, unknown> = { summary: route.summary, responses: { ...responses(route), default: { description: 'Error', content: json('Error') } } };
  if (route.path.includes(':ref')) {
    op.parameters = [{ name: 'ref', in: 'path', required: true, description: 'Session id, id prefix or name', schema: { type: 'string' } }];
  }
  if (route.body !== undefined) op.requestBody = { required: true, content: json(route.body) };
  return op;
}

function responses(route: Route): Record<string, unknown> {
  const status = route.method === 'post' && (route.path === '/api/sessions' || route.path === '/api/ui/login') ? '201' : '200';
  switch (route.response) {
    case 'sse':
      return { [status]: { description: 'Server-sent events', content: { 'text/event-stream': { schema: { type: 'string' } } } } };
    case 'diff':
      return { [status]: { description: 'Unified diff', content: { 'text/x-diff': { schema: { type: 'string' } } } } };
    case 'any':
    case undefined:
      return { [status]: { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } } };
    default:
      return { [status]: { description: 'OK', content: json(route.response) } };
  }
}

function json(name: SchemaName): Record<string, unknown> {
  return { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } };
}
