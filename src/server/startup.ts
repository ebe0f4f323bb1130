/**
 * The supervisor listens before it catches up (decision 169, "The supervisor listens first and
 * catches up after"). Wiring the domains (with a shared store, joining the workspace), re-attaching
 * the hosts and firing missed routines can take many seconds on a busy machine; a CLI that started
 * the supervisor must not give up meanwhile, and a retrying script must not race a second one.
 *
 * So the HTTP listener opens first, in front of a gate: the health check answers at once (with
 * the phase), and every other request waits until the API is wired and the hosts are back, or is
 * told after a while that the supervisor is still starting. Missed routines, merge recovery and
 * the attempts' retries run after the gate opens: nothing a request reads waits on them.
 */
import { timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, watch } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { KEEP_ALIVE } from '../api/client.js';
import { parsePort } from '../shared/port.js';
import { errorMessage } from '../shared/errors.js';
import { VERSION } from '../shared/version.js';
import { createLogger } from '../shared/log.js';

export type StartupPhase = 'starting' | 'catching_up' | 'ready';

type Fetch = (request: Request) => Response | Promise<Response>;

const log = createLogger('supervisor');

/** How long a request waits for a supervisor still wiring itself before it is told so (a cold start takes ~1 s). */
const WAIT_FOR_API_MS = 60_000;

export class StartupGate {
  private current: StartupPhase = 'starting';
  private app: Fetch | undefined;
  private opened!: () => void;
  private readonly open = new Promise<void>((resolve) => (this.opened = resolve));

  constructor(
    private readonly token: string,
    private readonly waitMs = WAIT_FOR_API_MS,
  ) {}

  get phase(): StartupPhase {
    return this.current;
  }

  /** The listener's handler: the API once it is served, until then the health check and a wait. */
  readonly fetch = async (request: Request): Promise<Response> => {
    if (this.app !== undefined) return this.app(request);
    if (new URL(request.url).pathname === '/api/health') {
      const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      if (bearer !== undefined && this.isUserToken(bearer))
        return Response.json({ ok: true, pid: process.pid, phase: this.current, version: VERSION });
      // A session's credential (or a browser's cookie) is checked by the API, once it is wired.
      // The MCP domain is loaded with the rest of the supervisor, after it listens (decision 346).
      if (bearer !== undefined && !(await import('../mcp/index.js')).isSessionCredential(bearer))
        return Response.json(
          { error: { code: 'unauthorized', message: 'The supervisor rejected the token.' } },
          { status: 401 },
        );
    }
    let timer: NodeJS.Timeout | undefined;
    const served = await Promise.race([
      this.open.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.waitMs))),
    ]);
    clearTimeout(timer);
    const app = this.served();
    if (served && app !== undefined) return app(request);
    return Response.json(
      {
        error: {
          code: 'supervisor_unreachable',
          message: `The supervisor (pid ${process.pid}) is still starting; try again in a moment, or see \`baton daemon logs\`.`,
        },
      },
      { status: 503, headers: { 'retry-after': '5' } },
    );
  };

  /** The API is wired and the hosts are back: requests are served, the rest of the catch-up goes on. */
  serve(app: Fetch): void {
    this.app = app;
    this.current = 'catching_up';
    this.opened();
  }

  private served(): Fetch | undefined {
    return this.app;
  }

  /** Missed routines fired, merges and attempts recovered. */
  caughtUp(): void {
    this.current = 'ready';
  }

  private isUserToken(bearer: string): boolean {
    const given = Buffer.from(bearer);
    const wanted = Buffer.from(this.token);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }
}

/** The step boundaries of a supervisor's start at which a test may hold it (`BATON_STARTUP_HOLD`). */
export type StartupStep = 'listen' | 'wiring' | 'catch-up';

/**
 * A fault-injection hook for tests: with `BATON_STARTUP_HOLD=<step>=<file>`, the start stops at that
 * step boundary until `file` exists, so a test can act at exactly that point (never after a timer).
 * Unset, it costs nothing.
 */
export async function holdAt(step: StartupStep, env: NodeJS.ProcessEnv): Promise<void> {
  const hold = env.BATON_STARTUP_HOLD;
  if (hold === undefined || !hold.startsWith(`${step}=`)) return;
  const file = hold.slice(step.length + 1);
  log.info('start held at a step boundary (test hook)', { step, until: file });
  await new Promise<void>((resolve) => {
    const watcher = watch(dirname(file), () => {
      if (!existsSync(file)) return;
      watcher.close();
      resolve();
    });
    if (existsSync(file)) {
      watcher.close();
      resolve();
    }
  });
  log.info('start released', { step });
}

/**
 * Tells the CLI that started us that we listen. The CLI may have gone (given up, or killed):
 * a message it can no longer take is logged, never an uncaught error.
 */
export function tellStarter(message: { ready: true; port: number }): void {
  if (process.send === undefined) return;
  if (!process.connected) {
    log.info('the command that started the supervisor has gone; nobody to tell it is ready');
    return;
  }
  try {
    process.send(message, (error: Error | null) => {
      if (error !== null)
        log.info('the command that started the supervisor went away before it was ready', {
          error: error.message,
        });
      // Let go of the channel either way: the supervisor outlives the command that started it.
      if (process.connected) process.disconnect();
    });
  } catch (error) {
    log.info('the command that started the supervisor went away before it was ready', {
      error: (error as Error).message,
    });
  }
}

/**
 * BATON_PORT, or else the last supervisor's port: an open dashboard then reconnects by itself
 * after a restart (its logins are kept too). Taken meanwhile, any free port will do.
 */
export async function listenWhereWeCan(
  fetch: Fetch,
  pinnedPort: number | undefined,
  lastPortFile: string,
): Promise<{ server: ServerType; port: number }> {
  const preferred = pinnedPort ?? readLastPort(lastPortFile);
  try {
    return await listen(fetch, preferred);
  } catch (error) {
    if (pinnedPort !== undefined || preferred === 0) throw error;
    log.info('the last port is taken; listening on another', { port: preferred, error: errorMessage(error) });
    return listen(fetch, 0);
  }
}

/** Stops taking connections and ends the idle kept-alive ones, so nothing reaches handlers whose stores are closed. */
export function closeListener(server: ServerType): void {
  server.close();
  (server as HttpServer).closeIdleConnections();
}

export interface ListenTimeouts {
  /** How long an idle kept-alive connection is kept; above every client's own idle time. */
  keepAliveMs: number;
  /** How long a request's headers may take; above the keep-alive time, as Node requires to avoid its own race. */
  headersMs: number;
}

/** The supervisor's listener on loopback. `timeouts`: the keep-alive ones, shorter in a test. */
export function listen(
  fetch: Fetch,
  port: number,
  timeouts: ListenTimeouts = { keepAliveMs: KEEP_ALIVE.serverMs, headersMs: KEEP_ALIVE.serverHeadersMs },
): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve, reject) => {
    // The adapter's own clean-up of an unread body closes the connection 500 ms after the answer;
    // a client still uploading then (a 413 on a busy machine) found its kept-alive connection
    // closed under its next request. Node reads and drops an unread body itself, and the body
    // limit bounds what it drops (decision 197).
    const server = serve(
      { fetch, hostname: '127.0.0.1', port, autoCleanupIncoming: false },
      (info: AddressInfo) => resolve({ server, port: info.port }),
    );
    server.once('error', reject);
    const http = server as HttpServer;
    // Event streams (`logs -f`, attach, the board) stay open for hours; Node's default cuts
    // every request at 300 s.
    http.requestTimeout = 0;
    // Node's default keeps an idle connection 5 s, as long as its own client keeps one: a client
    // reusing it at that very moment (its timer late under load) met a closed socket ("other side
    // closed", 25 requests in 1,000). The server now waits well past any client (decision 171).
    http.keepAliveTimeout = timeouts.keepAliveMs;
    http.headersTimeout = timeouts.headersMs;
  });
}

/** 0 (any free port) when there is no last port or the file holds something else. */
function readLastPort(file: string): number {
  try {
    return parsePort(readFileSync(file, 'utf8')) ?? 0;
  } catch {
    return 0;
  }
}
