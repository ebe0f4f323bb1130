/**
 * Starts session host processes, detached so they outlive the supervisor. One spare host is
 * kept loaded and waiting, so a dispatch skips Node's start-up and module loading.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crashPoint } from '../shared/crash-points.js';
import { InternalError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import type { SessionEnv } from './environment.js';
import type { HostSpec } from './spec.js';

const log = createLogger('launcher');

/** Claude's SDK and binary take ~1 s to start here; two minutes is far past any healthy start. */
const START_TIMEOUT_MS = 120_000;

/**
 * The compiled host entry. Under the test runner this module is TypeScript source, so we point
 * at the build output instead (npm test builds first).
 */
export function hostEntry(): string {
  // Bundled, the launcher sits in dist/bundle/ beside the bundled host (decision 222, "The
  // supervisor and the host start from bundles"); transpiled, beside the transpiled host.
  const here = fileURLToPath(new URL('./host-main.js', import.meta.url));
  if (existsSync(here)) return here;
  const bundled = here.replace(/\/src\/sessions\/host-main\.js$/, '/dist/bundle/host-main.js');
  if (existsSync(bundled)) return bundled;
  const built = here.replace(/\/src\/sessions\/host-main\.js$/, '/dist/sessions/host-main.js');
  if (existsSync(built)) return built;
  throw new InternalError(`Session host entry not found at ${here}; run \`npm run build\``);
}

/**
 * Node's flags for a host (decision 368): V8's young generation capped at 1 MB a half. A host
 * allocates little once started (events written as they come), but loading its code grew the
 * young generation to its default cap and kept it: 17.6 MB of heap for 8.2 MB used. Capped, a
 * spare host holds 11.9 MB of heap, 2.5 MB PSS less (21.1 to 18.6), at the cost of more, smaller
 * scavenges.
 */
export const HOST_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

export interface LaunchedHost {
  pid: number;
  /** Settles when the host process exits (only while this supervisor is its parent). */
  exited: Promise<number | null>;
  /** Whether the spare took the session, and the start's steps in ms (decision 221). */
  steps: Record<string, number | boolean>;
}

export class HostLauncher {
  private spare: { child: ChildProcess; exited: Promise<number | null> } | undefined;
  private closed = false;
  /** The spare preloads the adapter of the last dispatch: people tend to repeat the agent. */
  private lastAgent: string | undefined;

  constructor(
    private readonly home: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly keepSpare = true,
    private readonly startTimeoutMs = START_TIMEOUT_MS,
  ) {}

  /**
   * Starts a host and resolves once it reports ready (its socket listens and the agent started).
   * The spec goes to disk (a restarted host reads it); the environment does not, since it holds
   * the user's keys: a fresh host gets it as its process environment, the spare over IPC.
   */
  launch(
    spec: HostSpec,
    env: SessionEnv,
    onSpawned: (pid: number) => void = () => undefined,
  ): Promise<LaunchedHost> {
    const paths = sessionPaths(spec.home, spec.sessionId);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.spec, JSON.stringify(spec));
    const sent = performance.now();
    const spare = this.takeSpare();
    const host = spare ?? this.spawnHost([spec.home, spec.sessionId], paths.hostLog, spec.cwd, env);
    // Known at once, so a supervisor killed before the host reports ready leaves its pid behind
    // for the next one to re-attach to (or to notice it gone).
    if (host.child.pid !== undefined) onSpawned(host.child.pid);
    crashPoint('host.spawned');
    if (spare !== undefined) host.child.send({ assign: spec.sessionId, env });
    this.lastAgent = spec.agent;
    // The next spare is spawned after this turn of the event loop: its spawn (tens of ms on a busy
    // machine) is not on the way to the dispatch's answer (decision 310).
    setImmediate(() => this.refillSpare());
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => {
        clearTimeout(timer);
        reject(
          new InternalError(`The session host exited during start (code ${code}); see ${paths.hostLog}`),
        );
      };
      // An agent that never finishes starting (a login prompt, a hung binary) must not hold the
      // scheduler's pass, and with it every dispatch, for ever: the host is ended and the start fails.
      const timer = setTimeout(() => {
        host.child.off('exit', onExit);
        host.child.kill('SIGKILL');
        reject(
          new InternalError(
            `The session host did not finish starting within ${this.startTimeoutMs / 1000} s; see ${paths.hostLog}`,
          ),
        );
      }, this.startTimeoutMs);
      host.child.once('exit', onExit);
      host.child.once('message', (message: { steps?: Record<string, number> }) => {
        crashPoint('host.ready');
        clearTimeout(timer);
        host.child.off('exit', onExit);
        // Let go: the host must not depend on us staying alive.
        host.child.disconnect();
        host.child.unref();
        const ready = Math.round(performance.now() - sent);
        const own = typeof message === 'object' && message !== null ? (message.steps ?? {}) : {};
        // What the host did not count itself: a fresh one's Node start and module loading, a
        // spare's wait for the message (both ends of the pipe).
        const before = Math.max(0, ready - (typeof own.total === 'number' ? own.total : 0));
        resolve({
          pid: host.child.pid ?? -1,
          exited: host.exited,
          steps: { spare: spare !== undefined, [spare === undefined ? 'spawn' : 'assign']: before, ...own },
        });
      });
    });
  }

  close(): void {
    this.closed = true;
    const spare = this.spare;
    this.spare = undefined;
    spare?.child.kill('SIGTERM');
  }

  private takeSpare(): { child: ChildProcess; exited: Promise<number | null> } | undefined {
    const spare = this.spare;
    this.spare = undefined;
    if (spare === undefined || spare.child.exitCode !== null || !spare.child.connected) return undefined;
    return spare;
  }

  private refillSpare(): void {
    if (!this.keepSpare || this.closed || this.spare !== undefined) return;
    try {
      const args = [this.home, '--warm', ...(this.lastAgent === undefined ? [] : [this.lastAgent])];
      const spare = this.spawnHost(args, join(this.home, 'host-spare.log'), this.home, this.env);
      spare.child.on('error', (error) => log.warn('spare host failed', { error: error.message }));
      this.spare = spare;
    } catch (error) {
      log.warn('could not start a spare host', { error: (error as Error).message });
    }
  }

  private spawnHost(
    args: string[],
    logPath: string,
    cwd: string,
    env: NodeJS.ProcessEnv,
  ): { child: ChildProcess; exited: Promise<number | null> } {
    const logFd = openSync(logPath, 'a');
    try {
      const child = spawn(process.execPath, [...HOST_NODE_FLAGS, hostEntry(), ...args], {
        cwd,
        env,
        detached: true,
        stdio: ['ignore', logFd, logFd, 'ipc'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { child, exited };
    } finally {
      closeSync(logFd);
    }
  }
}
