/**
 * The supervisor's MCP endpoint (decision 365, "One MCP server in the supervisor, over streamable
 * HTTP"): every session's agent reaches Baton's tools here, on the supervisor's loopback port,
 * instead of through a `baton mcp` process of its own.
 *
 * Only a session's own credential opens it — never the user's token (a client outside a session
 * runs `baton mcp`, which acts for the user). Each tool then calls the API in-process, with that
 * same credential, through the same guard as every other request: what a session may do through
 * its MCP server is exactly what its credential may do through the API (session-callers.ts), read
 * anything, act only as itself.
 */
import type { Hono } from 'hono';
import { ApiClient, requestLine, streamMessage, type ErrorMapper, type Transport } from '../api/client.js';
import type { BatonEvent } from '../events/index.js';
import {
  checkCredential,
  isSessionCredential,
  mcpErrorResponse,
  MCP_HTTP_PATH,
  serveMcpRequest,
  type BatonApi,
} from '../mcp/index.js';
import {
  BatonError,
  SupervisorUnreachableError,
  UnauthorizedError,
  type ErrorCode,
} from '../shared/errors.js';
import { VERSION } from '../shared/version.js';
import type { SessionManager } from '../sessions/index.js';
import { credentialRefusal } from './session-callers.js';

export interface McpHttpOptions {
  manager: SessionManager;
  home(): string;
  port(): number;
}

export function mountMcpHttp(app: Hono, options: McpHttpOptions): void {
  app.all(MCP_HTTP_PATH, async (c) => {
    const bearer = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (bearer === undefined || !isSessionCredential(bearer))
      return mcpErrorResponse(
        401,
        "Baton's MCP endpoint takes a session's own credential only (the agent Baton started is given it). Anywhere else, run `baton mcp`.",
      );
    const check = checkCredential(options.home(), bearer);
    if (!check.ok) return mcpErrorResponse(401, credentialRefusal(check.sessionId, options.manager));
    // Names resolve in the session's own repository first, as `baton mcp` run in its worktree did.
    const cwd = options.manager.resolve(check.sessionId).worktree;
    const api = new InProcessApi(app, options.port(), bearer, cwd);
    return serveMcpRequest(c.req.raw, () => Promise.resolve(api), VERSION);
  });
}

/** The API as the calling session: requests handed to the app itself, no socket, the session's credential on each. */
class InProcessApi extends ApiClient implements BatonApi {
  private readonly request: (
    path: string,
    init: { method: string; body?: string; signal?: AbortSignal },
  ) => Promise<Response>;

  constructor(app: Hono, port: number, credential: string, cwd: string) {
    const origin = `127.0.0.1:${port}`;
    const request = (
      path: string,
      init: { method: string; body?: string; signal?: AbortSignal },
    ): Promise<Response> =>
      Promise.resolve(
        app.fetch(
          new Request(`http://${origin}${path}`, {
            ...init,
            headers: {
              host: origin,
              authorization: `Bearer ${credential}`,
              'x-baton-cwd': cwd,
              ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
            },
          }),
        ),
      );
    const transport: Transport = async ({ method, path, body }) => {
      const response = await request(path, { method, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      return { status: response.status, text, header: (name) => response.headers.get(name) ?? undefined };
    };
    super(transport, toError);
    this.request = request;
  }

  /** The session's events replayed then live, from the API's own stream (as `ask_user` waits on it). */
  async follow(
    ref: string,
    after: number,
    onEvent: (event: BatonEvent) => void,
    signal: AbortSignal,
  ): Promise<'completed' | 'removed' | undefined> {
    const route = 'GET /api/sessions/:ref/events';
    const { path } = requestLine(route, { params: { ref }, query: { follow: true, after } });
    const response = await this.request(path, { method: 'GET', signal });
    if (response.status !== 200) throw toError(response.status, await errorBody(response));
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const stop = (): void => void reader.cancel().catch(() => undefined);
    signal.addEventListener('abort', stop, { once: true });
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const { event, data } = parseSse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event === 'event') onEvent(streamMessage(route, 'event', data));
          else if (event === 'ended') return streamMessage(route, 'ended', data).reason;
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
    }
    if (signal.aborted) return undefined;
    // The supervisor is closing its streams: the waiter tries again, and finds the next one.
    throw new SupervisorUnreachableError('The supervisor closed the event stream.');
  }
}

const toError: ErrorMapper = (status, body) => {
  if (status === 401) return new UnauthorizedError(body?.error.message);
  return new BatonError(
    (body?.error.code ?? 'internal') as ErrorCode,
    body?.error.message ?? `The supervisor answered HTTP ${status}`,
    body?.error.data ?? {},
  );
};

async function errorBody(response: Response): Promise<Parameters<ErrorMapper>[1]> {
  try {
    return (await response.json()) as Parameters<ErrorMapper>[1];
  } catch {
    return undefined;
  }
}

function parseSse(block: string): { event: string; data: string } {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return { event, data: data.join('\n') };
}
