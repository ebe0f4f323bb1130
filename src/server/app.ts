/**
 * The supervisor's HTTP API (hono). Loopback only, bearer token required, Host and Origin
 * checked against DNS rebinding and cross-site requests. The CLI is a thin client of it.
 */
import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ZodError } from 'zod';
import { AcceptDangerousModeRequest, ApprovalRequest, DispatchRequest, PinRequest, ReplyRequest, RespawnAllRequest, type ApiErrorBody, type DaemonStatus, type RemoveView } from '../api/index.js';
import type { BatonEvent } from '../events/index.js';
import { BatonError, InvalidInputError, formatIssues } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionManager } from '../sessions/manager.js';
import type { BrowserAuth } from './web-auth.js';
import { mountWeb } from './web-routes.js';

const log = createLogger('http');
const SSE_KEEPALIVE_MS = 15_000;

export interface AppOptions {
  manager: SessionManager;
  token: string;
  /** The port we listen on, for the Host check; read lazily since it is known only after listen. */
  port: () => number;
  status: () => DaemonStatus;
  requestShutdown: () => void;
  /** Browser access (login codes, cookie sessions) and the web UI's routes; without it, the API takes the token only. */
  browserAuth?: BrowserAuth;
}

export function createApp(options: AppOptions): Hono {
  const { manager } = options;
  const app = new Hono();

  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) => c.json<ApiErrorBody>({ error: { code: 'not_found', message: `No route ${c.req.method} ${c.req.path}` } }, 404));

  app.use('*', async (c, next) => {
    const host = c.req.header('host') ?? '';
    const allowedHosts = [`127.0.0.1:${options.port()}`, `localhost:${options.port()}`];
    if (!allowedHosts.includes(host)) return refuse(403, 'forbidden', `Host "${host}" is not allowed`);
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`)) {
      return refuse(403, 'forbidden', `Origin "${origin}" is not allowed`);
    }
    // The web UI's pages and login are public; its API calls authenticate by cookie (web-auth.ts).
    if (options.browserAuth !== undefined && !c.req.path.startsWith('/api/')) return next();
    if (!tokenMatches(c.req.header('authorization'), options.token) && !(options.browserAuth?.allows(c.req.raw) ?? false)) {
      return refuse(401, 'unauthorized', 'Missing or wrong token. The CLI reads it from $BATON_HOME/token.');
    }
    await next();
  });

  app.get('/api/health', (c) => c.json({ ok: true, pid: process.pid }));
  app.get('/api/daemon', (c) => c.json(options.status()));
  app.post('/api/daemon/stop', (c) => {
    setImmediate(options.requestShutdown);
    return c.json({ ok: true });
  });

  app.get('/api/sessions', (c) => {
    const project = c.req.query('project');
    const sessions = manager.list().filter((s) => project === undefined || s.project_root === project || s.project_name === project);
    return c.json({ sessions: sessions.map((s) => manager.view(s)) });
  });

  app.post('/api/sessions', async (c) => {
    const body = DispatchRequest.parse(await readJson(c));
    const session = await manager.dispatch(body);
    return c.json({ session: manager.view(session) }, 201);
  });

  app.post('/api/dangerous-mode/accept', async (c) => {
    const body = AcceptDangerousModeRequest.parse(await readJson(c));
    return c.json({ root: await manager.acceptDangerousMode(body.cwd) });
  });

  app.post('/api/sessions/respawn-all', async (c) => {
    const body = RespawnAllRequest.parse(await readJson(c));
    const sessions = await manager.respawnAll(body.project);
    return c.json({ sessions: sessions.map((s) => manager.view(manager.resolve(s.id))) });
  });

  app.get('/api/sessions/:ref', (c) => c.json({ session: manager.view(manager.resolve(c.req.param('ref'), cwdOf(c))) }));
  app.get('/api/sessions/:ref/peek', async (c) => c.json(await manager.peek(c.req.param('ref'), cwdOf(c))));

  app.get('/api/sessions/:ref/events', (c) => {
    const after = parseAfter(c.req.query('after'));
    const session = manager.resolve(c.req.param('ref'), cwdOf(c));
    if (c.req.query('follow') === undefined) return c.json({ events: manager.eventsAfter(session.id, after) });
    return streamSSE(c, async (stream) => {
      const buffered: BatonEvent[] = [];
      let live = false;
      let last = after;
      const send = async (event: BatonEvent): Promise<void> => {
        if (event.seq <= last) return;
        last = event.seq;
        await stream.writeSSE({ id: String(event.seq), event: 'event', data: JSON.stringify(event) });
      };
      const onEvent = (sessionId: string, event: BatonEvent): void => {
        if (sessionId !== session.id) return;
        if (!live) buffered.push(event);
        else send(event).catch(() => stream.abort());
      };
      // Subscribe before replaying so nothing written in between is missed; `last` drops duplicates.
      manager.on('event', onEvent);
      const closed = new Promise<void>((resolve) => stream.onAbort(resolve));
      try {
        for (let page = manager.eventsAfter(session.id, after); page.length > 0; page = manager.eventsAfter(session.id, last)) {
          for (const event of page) await send(event);
        }
        for (const event of buffered) await send(event);
        live = true;
        await stream.writeSSE({ event: 'live', data: JSON.stringify({ seq: last }) });
        // A comment line now and then lets clients and proxies see the stream is alive, and
        // surfaces a vanished client as a write error.
        const keepAlive = setInterval(() => {
          stream.write(': keep-alive\n\n').catch(() => stream.abort());
        }, SSE_KEEPALIVE_MS);
        await closed.finally(() => clearInterval(keepAlive));
      } finally {
        manager.off('event', onEvent);
      }
    });
  });

  app.post('/api/sessions/:ref/reply', async (c) => {
    const body = ReplyRequest.parse(await readJson(c));
    return c.json({ session: manager.view(await manager.reply(c.req.param('ref'), body.text, cwdOf(c), body.clientId)) });
  });
  app.post('/api/sessions/:ref/approval', async (c) => {
    const body = ApprovalRequest.parse(await readJson(c));
    const session = await manager.resolveApproval(c.req.param('ref'), body.decision, body.reason, body.requestId, cwdOf(c));
    return c.json({ session: manager.view(session) });
  });
  app.post('/api/sessions/:ref/interrupt', async (c) => c.json({ session: manager.view(await manager.interrupt(c.req.param('ref'), cwdOf(c))) }));
  app.post('/api/sessions/:ref/stop', async (c) => c.json({ session: manager.view(await manager.stop(c.req.param('ref'), cwdOf(c))) }));
  app.post('/api/sessions/:ref/respawn', async (c) => c.json({ session: manager.view(await manager.respawn(c.req.param('ref'), cwdOf(c))) }));
  app.post('/api/sessions/:ref/done', async (c) => c.json({ session: manager.view(await manager.done(c.req.param('ref'), cwdOf(c))) }));
  app.post('/api/sessions/:ref/pin', async (c) => {
    const body = PinRequest.parse(await readJson(c));
    return c.json({ session: manager.view(manager.setPinned(c.req.param('ref'), body.pinned, cwdOf(c))) });
  });
  app.delete('/api/sessions/:ref', async (c) => {
    const { session, result } = await manager.remove(c.req.param('ref'), cwdOf(c));
    const view: RemoveView = {
      session: manager.view(session),
      snapshotRef: result.snapshotRef ?? null,
      snapshotCommit: result.snapshotCommit ?? null,
      branchDeleted: result.branchDeleted,
    };
    return c.json(view);
  });

  // Last: the web routes end with the UI's catch-all.
  if (options.browserAuth !== undefined) mountWeb(app, { manager, auth: options.browserAuth, port: options.port });
  return app;
}

/** The caller's working directory, so names resolve in the caller's project first. */
function cwdOf(c: Context): string | undefined {
  return c.req.header('x-baton-cwd') ?? c.req.query('cwd');
}

function parseAfter(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidInputError(`"after" must be a non-negative integer, got "${value}"`);
  return n;
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError('The request body is not valid JSON.');
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function refuse(status: 401 | 403, code: string, message: string): Response {
  const body: ApiErrorBody = { error: { code, message } };
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** The one place where errors become HTTP responses. */
function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof ZodError) {
    const message = formatIssues(error.issues);
    return c.json<ApiErrorBody>({ error: { code: 'invalid_input', message: `Invalid request: ${message}` } }, 400);
  }
  if (error instanceof BatonError) {
    return c.json<ApiErrorBody>({ error: { code: error.code, message: error.message, data: error.data } }, error.httpStatus as 400);
  }
  log.error('unhandled error', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return c.json<ApiErrorBody>({ error: { code: 'internal', message: 'Internal error; see supervisor.log' } }, 500);
}
