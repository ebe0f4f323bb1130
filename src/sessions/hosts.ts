/**
 * Host supervision: starting a session's host, watching it (its log and its exit), re-attaching
 * to hosts that kept running while the supervisor was away, noticing a host that died without
 * ending its session, and stopping one.
 */
import { readFileSync } from 'node:fs';
import type { PermissionMode } from '../agents/index.js';
import { readPlan } from '../environments/index.js';
import { mintCredential, revokeCredential } from '../mcp/index.js';
import { BatonError, errorMessage, isDiskFull } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import { pausePoint } from '../shared/test-points.js';
import { ensureSocketFolder } from '../shared/private-folder.js';
import type { EventStore } from '../store/events.js';
import type { SessionStore, SessionWithProject } from '../store/sessions.js';
import { sessionEnvironment } from './environment.js';
import {
  hostSocket,
  isHostAlive,
  runningHostOf,
  holdSessionHost,
  sendToSessionHost,
  type HostCommand,
} from './host-client.js';
import { HostWatch } from './host-watch.js';
import { orphanMsFrom } from './host-orphan.js';
import type { Ingestor } from './ingest.js';
import { HostLauncher } from './launcher.js';
import { ACTIVE_STATES } from './state.js';

const log = createLogger('hosts');
/** How soon a session's exit is looked at again while the disk is full. */
const DISK_FULL_RETRY_MS = 1000;

export interface HostsOptions {
  home: string;
  /** The user's environment, the base of every session's own (see environment.ts). */
  env: NodeJS.ProcessEnv;
  spareHost: boolean;
  store: SessionStore;
  events: EventStore;
  ingestor: Ingestor;
  /** A host has gone and its session was settled: a slot may be free. */
  onGone: (sessionId: string) => void;
  /** Instructions another domain adds for this session at its start (a task's context), read at each launch. */
  contextFor?: (session: SessionWithProject) => string | undefined;
}

export class HostSupervisor {
  private readonly watches = new Map<string, HostWatch>();
  private readonly launcher: HostLauncher;
  /** Hosts being started, settling once each reports ready or its start has failed. */
  private readonly launching = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly options: HostsOptions) {
    this.launcher = new HostLauncher(options.home, options.env, options.spareHost);
  }

  isRunning(session: Pick<SessionWithProject, 'id' | 'host_pid'>): boolean {
    return isHostAlive(session.host_pid, session.id);
  }

  /**
   * Sends a command to a session's host and waits for its answer. A host still starting (a
   * dispatch answers before its host is ready: decision 310) is waited for first: its socket
   * listens once it reports ready, and a reply sent at once after `baton dispatch` must reach it.
   */
  async send(sessionId: string, command: HostCommand): Promise<void> {
    await this.launching.get(sessionId);
    return sendToSessionHost(this.options.home, sessionId, command);
  }

  /**
   * Asks a session's host to hand its agent nothing until `letGo` (decision 456); the hold lasts
   * no longer than the connection that asked for it (decision 461). Rejects as `send` does.
   */
  async hold(sessionId: string): Promise<{ letGo(): void }> {
    await this.launching.get(sessionId);
    return holdSessionHost(this.options.home, sessionId);
  }

  /**
   * A session's environment: the user's, Baton's variables, then its leased ports and templated
   * variables (decision 61, "Ports are leased in SQLite").
   */
  sessionEnv(session: SessionWithProject): Record<string, string> {
    return {
      ...sessionEnvironment(this.options.env, session),
      ...readPlan(sessionPaths(this.options.home, session.id).dir, session.worktree).env,
    };
  }

  /** Starts the host of a queued session. Never throws: a host that cannot start fails its session, with the reason. */
  launch(session: SessionWithProject): Promise<void> {
    const started = this.start(session).finally(() => this.launching.delete(session.id));
    this.launching.set(session.id, started);
    return started;
  }

  private async start(session: SessionWithProject): Promise<void> {
    const started = performance.now();
    const { ingestor, store } = this.options;
    // The scheduler's pass has marked the session starting; the host is spawned (or the spare
    // given it) on the next turn of the event loop, after a dispatch's answer has gone: a spawn
    // forks this whole process, tens of ms on a busy machine (decision 416).
    await new Promise<void>((resolve) => setImmediate(resolve));
    await pausePoint('host.launch');
    try {
      // Checked here too, so a socket folder another user made fails the session with the reason.
      ensureSocketFolder(
        this.options.home,
        sessionPaths(this.options.home, session.id, this.options.env).socket,
      );
      // Each start of the agent gets its own credential for Baton's MCP server; the last one's is void.
      mintCredential(this.options.home, session.id);
      const host = await this.launcher.launch(
        {
          sessionId: session.id,
          home: this.options.home,
          agent: session.agent,
          cwd: session.worktree,
          repository: session.project_root,
          prompt: session.prompt,
          ...(session.model === null ? {} : { model: session.model }),
          permissionMode: session.permission_mode as PermissionMode,
          options: JSON.parse(session.options_json) as Record<string, unknown>,
          ...(session.agent_session_id === null ? {} : { resumeId: session.agent_session_id }),
          ...readInstructions(sessionPaths(this.options.home, session.id).instructions),
          ...contextOf(this.options.contextFor, session),
          orphanMs: orphanMsFrom(this.options.env),
        },
        // Its leased ports and templated variables (decision 61, "Ports are leased in SQLite") on top
        // of the user's environment.
        this.sessionEnv(session),
        (pid) => store.setHostPid(session.id, pid),
      );
      store.setHostPid(session.id, host.pid);
      this.watch(session.id, host.exited);
      log.info('host started', {
        session: session.id,
        pid: host.pid,
        ms: Math.round(performance.now() - started),
        steps: host.steps,
      });
    } catch (error) {
      // The session's host may be one an earlier supervisor started: ours then stood down.
      if (this.adopt(session.id)) return;
      log.error('host launch failed', { session: session.id, error: errorMessage(error) });
      // A host that died before writing anything leaves the session queued; scheduling it again
      // would fail the same way, for ever. Record the failure so it stays put and says why.
      ingestor.ingest(session.id);
      if (store.get(session.id)?.state === 'queued') {
        const message = `its session host could not start: ${errorMessage(error)}`;
        ingestor.record(
          session.id,
          { kind: 'host_lost', message },
          {
            before: [{ type: 'error.raised', message, fatal: true }],
            after: [{ type: 'session.ended', reason: 'failed', message }],
          },
        );
      }
      this.onGone(session.id);
    } finally {
      ingestor.ingest(session.id);
    }
  }

  /** Re-attaches to hosts that kept running while the supervisor was away, and ingests what they wrote. */
  reattachAll(): { attached: number; ingested: number } {
    const { store, ingestor } = this.options;
    let ingested = 0;
    let attached = 0;
    for (const session of store.listLive()) {
      // One session's trouble (a log made unreadable by hand) must not keep the supervisor from starting.
      try {
        ingested += ingestor.ingest(session.id);
        const fresh = store.get(session.id);
        if (fresh === undefined) continue;
        // No host recorded: fine while queued; mid-turn it means the host is gone unrecorded.
        if (fresh.host_pid === null && !ACTIVE_STATES.includes(fresh.state)) continue;
        if (this.isRunning(fresh)) {
          this.watch(fresh.id);
          attached++;
        } else this.onGone(fresh.id);
      } catch (error) {
        log.error('could not re-attach a session', { session: session.id, error: errorMessage(error) });
      }
    }
    return { attached, ingested };
  }

  /** A session recorded mid-turn whose host is gone: recorded as failed now, so commands see the truth. */
  settleLost(session: SessionWithProject): void {
    if (!this.isRunning(session) && ACTIVE_STATES.includes(session.state) && session.state !== 'queued')
      this.onGone(session.id);
  }

  /**
   * A session that has left `queued` with no host recorded: its host was written off while it had
   * not yet shown the session (a spare handed it by a supervisor killed at once, decision 65) and
   * then took it. Its claim names it; it is recorded and watched, not left running unknown.
   */
  adoptUnrecorded(sessionId: string): void {
    if (this.closed || this.options.store.get(sessionId)?.host_pid !== null) return;
    this.adopt(sessionId);
  }

  /** Takes on a live host of the session not recorded as its host (see `runningHostOf`). */
  private adopt(sessionId: string): boolean {
    const pid = runningHostOf(this.options.home, sessionId);
    if (pid === undefined) return false;
    this.options.store.setHostPid(sessionId, pid);
    this.watch(sessionId);
    log.info("re-attached a host not recorded as the session's", { session: sessionId, pid });
    return true;
  }

  /** Asks a host to stop (saying why, when it was not the user) and waits until it has gone. */
  async stop(session: SessionWithProject, reason?: string): Promise<void> {
    const watch = this.watches.get(session.id);
    try {
      await this.send(session.id, { op: 'stop', ...(reason === undefined ? {} : { reason }) });
    } catch (error) {
      if (!(error instanceof BatonError) || error.code !== 'conflict') throw error;
    }
    await this.settleExit(session, watch);
  }

  /**
   * Asks the host of an idle session to let its agent go (the watchdog's idle rule) and waits until
   * it has gone; false when the host refused, the session being in use.
   */
  async release(session: SessionWithProject, message: string): Promise<boolean> {
    const watch = this.watches.get(session.id);
    try {
      await this.send(session.id, { op: 'release', message });
    } catch (error) {
      if (error instanceof BatonError && error.code === 'conflict') return false;
      throw error;
    }
    await this.settleExit(session, watch);
    return true;
  }

  /** Waits for a host asked to end, then records what it wrote last and that it has gone. */
  private async settleExit(session: SessionWithProject, watch: HostWatch | undefined): Promise<void> {
    if (watch !== undefined) await watch.gone;
    else await waitForExit(session.host_pid, session.id);
    this.options.ingestor.ingest(session.id);
    this.options.store.setHostPid(session.id, null);
  }

  /** Resolves when the session's watched host has exited (at once when none is watched). */
  async gone(sessionId: string): Promise<void> {
    await this.watches.get(sessionId)?.gone;
  }

  unwatch(sessionId: string): void {
    this.watches.get(sessionId)?.close();
    this.watches.delete(sessionId);
  }

  /** Stops watching; hosts keep running on their own. */
  close(): void {
    this.closed = true;
    this.launcher.close();
    for (const watch of this.watches.values()) watch.close();
    this.watches.clear();
  }

  private watch(sessionId: string, exited?: Promise<number | null>): void {
    this.watches.get(sessionId)?.close();
    const paths = sessionPaths(this.options.home, sessionId);
    const watch = new HostWatch(
      paths.events,
      hostSocket(this.options.home, sessionId),
      () => this.options.ingestor.ingestSoon(sessionId),
      exited,
    );
    this.watches.set(sessionId, watch);
    watch.gone
      .then(() => {
        if (this.watches.get(sessionId) !== watch) return;
        this.watches.delete(sessionId);
        this.onGone(sessionId);
      })
      .catch((error: unknown) =>
        log.error('host watch failed', { session: sessionId, error: errorMessage(error) }),
      );
  }

  /** Ingests, or, while the disk is full (SQLite cannot grow), runs `retry` a second later and says false. */
  private ingestWhenRoom(sessionId: string, retry: () => void): boolean {
    try {
      this.options.ingestor.ingest(sessionId);
      return true;
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      log.warn('the disk is full: a host that ended is looked at again in a second', {
        session: sessionId,
        error: errorMessage(error),
      });
      setTimeout(retry, DISK_FULL_RETRY_MS);
      return false;
    }
  }

  /** The host has exited: ingest its last events, and record a crash if it did not end the session itself. */
  private onGone(sessionId: string): void {
    if (this.closed) return;
    const { store, events, ingestor } = this.options;
    if (!this.ingestWhenRoom(sessionId, () => this.onGone(sessionId))) return;
    const session = store.get(sessionId);
    if (session === undefined || this.isRunning(session) || this.adopt(sessionId)) return;
    // A host that died without ending its session left its credential behind.
    revokeCredential(this.options.home, sessionId);
    const [last] = events.latest(sessionId, ['session.started', 'session.ended'], 1);
    if (last?.type === 'session.started' || ACTIVE_STATES.includes(session.state)) {
      const message = `the session host (pid ${session.host_pid ?? '?'}) exited unexpectedly; \`baton respawn ${session.name}\` restarts it`;
      ingestor.record(
        sessionId,
        { kind: 'host_lost', message },
        {
          before: [{ type: 'error.raised', message, fatal: true }],
          after: [{ type: 'session.ended', reason: 'host_exited', message }],
        },
      );
    }
    store.setHostPid(sessionId, null);
    ingestor.emit('session', sessionId);
    this.options.onGone(sessionId);
  }
}

async function waitForExit(pid: number | null, sessionId: string): Promise<void> {
  // Monotonic: a wall clock that jumps must not cut the wait short or stretch it.
  const deadline = performance.now() + 15_000;
  // A host we did not spawn (re-attached) has no exit event to wait on; its pid is all we have.
  while (isHostAlive(pid, sessionId) && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
}

/** The instructions given at dispatch, when there were any. */
function readInstructions(file: string): { instructions?: string } {
  try {
    return { instructions: readFileSync(file, 'utf8') };
  } catch {
    return {};
  }
}

/** The other domains' instructions for a session, or nothing; their failure never keeps a session from starting. */
function contextOf(
  contextFor: HostsOptions['contextFor'],
  session: SessionWithProject,
): { context?: string } {
  try {
    const context = contextFor?.(session);
    return context === undefined ? {} : { context };
  } catch (error) {
    log.error('could not build the session context', { session: session.id, error: errorMessage(error) });
    return {};
  }
}
