/**
 * Admission by subscription window (decision 300), as a gate on the sessions' queue: a new session
 * waits while its agent's window is used up or projected to run out before its reset (the rule is
 * in src/usage/hold.ts). A dispatch with `--force` passes, also after a supervisor restart: the
 * flag is read back from the session's stored `session.dispatched` event (decision 367). Time
 * alone lifts a hold (a reset comes), so the watchdog's tick asks the scheduler again while
 * anything waits here.
 */
import type { WorkspaceBus } from '../bus/index.js';
import { DEFAULT_HOLD_AT_PERCENT, WINDOW_GATE, windowHold, type UsageTracker } from '../usage/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { WatchdogSessions } from './sessions.js';

/** States whose agent burns the window now: those waiting on a person or the limit do not. */
const BURNING = new Set(['starting', 'working']);

export class WindowGate {
  /**
   * Whether a session was dispatched with `--force`: from the bus as it is published, or read back
   * from the stored dispatch the first time the gate would hold a session this supervisor did not
   * see dispatched (one queued before a restart).
   */
  private readonly forced = new Map<string, boolean>();
  private readonly held = new Set<string>();
  private bus: WorkspaceBus | undefined;

  constructor(
    private readonly sessions: WatchdogSessions,
    private readonly usage: UsageTracker,
    private readonly clock: () => number,
    private readonly holdAtPercent = DEFAULT_HOLD_AT_PERCENT,
  ) {}

  /** Installs the gate and the `--force` listener; returns their removal. */
  install(bus: WorkspaceBus): () => void {
    this.bus = bus;
    const off = bus.subscribe((event) => {
      if (event.type === 'session.dispatched')
        this.forced.set(event.data.sessionId, event.data.force === true);
    });
    const remove = this.sessions.addGate({ name: WINDOW_GATE, holds: (session) => this.holds(session) });
    return () => {
      off();
      remove();
    };
  }

  holds(session: SessionWithProject): string | undefined {
    if (this.forced.get(session.id) === true) return undefined;
    const atWork = this.sessions
      .list()
      .filter((s) => s.agent === session.agent && s.removed_at === null && BURNING.has(s.state)).length;
    const now = this.clock();
    const reason = windowHold({
      agent: session.agent,
      windows: this.usage.windows.list(now),
      atWork,
      now,
      holdAtPercent: this.holdAtPercent,
    });
    if (reason !== undefined && this.wasForced(session.id)) return undefined;
    if (reason === undefined) this.held.delete(session.id);
    else this.held.add(session.id);
    return reason;
  }

  /** Asked only of a session the gate would hold: one database look per session, then remembered. */
  private wasForced(sessionId: string): boolean {
    let forced = this.forced.get(sessionId);
    if (forced === undefined) {
      const dispatched = this.bus?.latestAbout('session.dispatched', sessionId) as
        { force?: boolean } | undefined;
      forced = dispatched?.force === true;
      this.forced.set(sessionId, forced);
    }
    return forced;
  }

  /** On the watchdog's tick: while anything waits here, the scheduler looks again (a reset may have come). */
  recheck(): void {
    for (const id of this.held) {
      const session = this.sessions.get(id);
      if (session === undefined || session.state !== 'queued') {
        this.held.delete(id);
        this.forced.delete(id);
      }
    }
    if (this.held.size > 0) void this.sessions.schedule();
  }
}
