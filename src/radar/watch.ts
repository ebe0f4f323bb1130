/**
 * When the radar runs: soon after sessions change (a tool finished, a turn ended, a state
 * changed, a dispatch, a removal), coalesced so a burst of events makes one pass that snapshots
 * only the sessions that changed; plus a periodic full pass for edits made by hand in a worktree.
 * Timers are injected so tests drive the period and the debounce themselves.
 */
import type { WorkspaceBus } from '../bus/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { ConflictRadar } from './radar.js';

const log = createLogger('radar');

export const DEFAULT_DEBOUNCE_MS = 300;
export const DEFAULT_INTERVAL_MS = 30_000;
/** The first full pass waits this long after the start: a starting supervisor is busy re-attaching and ingesting. */
export const DEFAULT_FIRST_PASS_MS = 3_000;

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    // A pending radar pass never keeps a process alive.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What the radar listens to on the session manager: its per-session events. */
export interface SessionSignals {
  on(event: 'event', listener: (sessionId: string, event: { type: string }) => void): unknown;
  off(event: 'event', listener: (sessionId: string, event: { type: string }) => void): unknown;
}

/** Per-session events after which the work on disk may have changed. */
const CHANGING = new Set(['tool.finished', 'turn.completed', 'state.changed', 'session.ended']);

export interface RadarWatchOptions {
  debounceMs?: number;
  intervalMs?: number;
  firstPassMs?: number;
  timers?: Timers;
}

export class RadarWatch {
  private readonly timers: Timers;
  private readonly fresh = new Set<string>();
  private soon: unknown;
  private periodic: unknown;
  private closed = false;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly radar: ConflictRadar,
    private readonly options: RadarWatchOptions = {},
  ) {
    this.timers = options.timers ?? REAL_TIMERS;
  }

  /** Listens to the sessions' events and the workspace bus, and starts the periodic pass (the first a moment later). */
  start(signals: SessionSignals, bus: WorkspaceBus): void {
    const onEvent = (sessionId: string, event: { type: string }): void => {
      if (CHANGING.has(event.type)) this.poke(sessionId);
    };
    signals.on('event', onEvent);
    this.unsubscribe.push(() => signals.off('event', onEvent));
    this.unsubscribe.push(
      bus.subscribe((event) => {
        if (event.type === 'session.dispatched') this.poke(event.data.sessionId);
        else if (event.type === 'session.removed') this.poke(null);
      }),
    );
    this.periodic = this.timers.setTimeout(
      () => this.tick(),
      this.options.firstPassMs ?? DEFAULT_FIRST_PASS_MS,
    );
  }

  /** A session's work may have changed (`null`: only the set of sessions did). */
  poke(sessionId: string | null): void {
    if (this.closed) return;
    if (sessionId !== null) this.fresh.add(sessionId);
    this.soon ??= this.timers.setTimeout(() => {
      this.soon = undefined;
      const ids = [...this.fresh];
      this.fresh.clear();
      this.run(this.radar.pass(ids));
    }, this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  }

  close(): void {
    this.closed = true;
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.soon !== undefined) this.timers.clearTimeout(this.soon);
    if (this.periodic !== undefined) this.timers.clearTimeout(this.periodic);
  }

  /** A full pass, then the next one a period later. */
  private tick(): void {
    if (this.closed) return;
    this.periodic = undefined;
    this.run(
      this.radar.pass().finally(() => {
        if (!this.closed)
          this.periodic = this.timers.setTimeout(
            () => this.tick(),
            this.options.intervalMs ?? DEFAULT_INTERVAL_MS,
          );
      }),
    );
  }

  private run(pass: Promise<unknown>): void {
    pass.catch((error: unknown) => log.error('radar pass failed', { error: errorMessage(error) }));
  }
}
