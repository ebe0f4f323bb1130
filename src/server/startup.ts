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
import { existsSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import { isSessionCredential } from '../mcp/credentials.js';
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
        return Response.json({ ok: true, pid: process.pid, phase: this.current });
      // A session's credential (or a browser's cookie) is checked by the API, once it is wired.
      if (bearer !== undefined && !isSessionCredential(bearer))
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
