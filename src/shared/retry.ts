/**
 * A retry with backoff for work that must reach a store eventually (the spend a machine publishes,
 * the task changes it queued): after a failure the work runs again once the delay is over, the
 * delay doubling up to a ceiling; a success brings it back to the first.
 */
export interface BackoffTiming {
  /** The first delay; default 200 ms. */
  firstMs?: number;
  /** The longest; default 5 s. */
  maxMs?: number;
}

export class RetryTimer {
  private timer: NodeJS.Timeout | undefined;
  private delayMs: number;

  constructor(
    private readonly run: () => void,
    private readonly timing: BackoffTiming = {},
  ) {
    this.delayMs = timing.firstMs ?? 200;
  }

  /** The work went through: the next failure waits the first delay again. */
  succeeded(): void {
    this.delayMs = this.timing.firstMs ?? 200;
  }

  /** The work failed: it runs again after the current delay (one pending retry at a time), and the delay doubles. */
  failed(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.run, this.delayMs);
    this.timer.unref();
    this.delayMs = Math.min(this.delayMs * 2, this.timing.maxMs ?? 5_000);
  }

  cancel(): void {
    clearTimeout(this.timer);
  }
}
