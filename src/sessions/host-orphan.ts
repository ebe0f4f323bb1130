/**
 * A host with no supervisor ends itself once it is idle (decision 169's companion, "A host left
 * without a supervisor ends itself when idle"). Hosts outlive their supervisor on purpose, so a
 * restart re-attaches them; but when no supervisor comes back (after `daemon stop`, a demo, a
 * bench) they used to run for hours. A supervisor watching a host keeps a connection to its
 * control socket open; when none has been open for `ms`, the host ends at the first moment it is
 * idle, keeping its session resumable.
 */

/** How long a host waits for a supervisor before it ends itself once idle: 10 minutes. */
export const DEFAULT_ORPHAN_MS = 10 * 60_000;

/**
 * The time from the supervisor's `BATON_HOST_ORPHAN_SECONDS` (fractions allowed, for tests; 0: a
 * host never ends itself so), else the default.
 */
export function orphanMsFrom(env: NodeJS.ProcessEnv): number {
  const text = env.BATON_HOST_ORPHAN_SECONDS;
  const seconds = text === undefined || text.trim() === '' ? NaN : Number(text);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : DEFAULT_ORPHAN_MS;
}

export class OrphanWatch {
  private watchers = 0;
  private timer: NodeJS.Timeout | undefined;
  /** No supervisor for the whole time: the host ends at its next idle moment. */
  private due = false;
  private closed = false;

  /** `ms` 0 or undefined: never. `endIfIdle` answers whether it ended the host (false while it works). */
  constructor(
    private readonly ms: number | undefined,
    private readonly endIfIdle: () => boolean,
  ) {
    this.arm();
  }

  /** A connection to the control socket opened (a supervisor watching, or sending a request). */
  connected(): void {
    this.watchers++;
    this.due = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  disconnected(): void {
    this.watchers = Math.max(0, this.watchers - 1);
    this.arm();
  }

  /** The session's state changed: a host that is due ends now if it has become idle. */
  stateChanged(): void {
    if (this.due && this.watchers === 0 && !this.closed && this.endIfIdle()) this.close();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private arm(): void {
    if (this.closed || this.ms === undefined || this.ms <= 0 || this.watchers > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.watchers > 0) return;
      this.due = true;
      this.stateChanged();
    }, this.ms);
    // The agent keeps the host alive; this timer alone must not.
    this.timer.unref();
  }
}
