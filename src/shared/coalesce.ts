/**
 * "Run once more if asked while running": one run at a time per key, and no queue behind it. A
 * request while a run is under way asks for exactly one more run after it, however many requests
 * arrive meanwhile — a session's turn ends faster than a slow remote takes pushes, and the last
 * push carries all the work anyway; a burst of events needs one more read, not one each.
 * `run` reports its own errors: a failed run resolves its askers too.
 */
export class Coalescer {
  private readonly running = new Map<string, Promise<void>>();
  /** Keys asked for again while running, and the promise the askers wait on. */
  private readonly again = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  constructor(private readonly run: (key: string) => Promise<void>) {}

  /** Resolves when a run that started after this request has finished (a failed run resolves too: `run` reports its own errors). */
  request(key: string): Promise<void> {
    if (!this.running.has(key)) return this.start(key);
    let next = this.again.get(key);
    if (next === undefined) {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      next = { promise, resolve };
      this.again.set(key, next);
    }
    return next.promise;
  }

  busy(key: string): boolean {
    return this.running.has(key);
  }

  /** Every run under way, and the ones asked for after them, finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  private start(key: string): Promise<void> {
    const done = this.run(key)
      .catch(() => undefined)
      .finally(() => {
        this.running.delete(key);
        const next = this.again.get(key);
        if (next === undefined) return;
        this.again.delete(key);
        void this.start(key).then(next.resolve);
      });
    this.running.set(key, done);
    return done;
  }
}

/** A `Coalescer` for one piece of work with no key: `request()` runs it, or once more after the run under way. */
export class Coalesced {
  private readonly coalescer: Coalescer;

  constructor(run: () => Promise<void>) {
    this.coalescer = new Coalescer(run);
  }

  request(): Promise<void> {
    return this.coalescer.request('');
  }

  busy(): boolean {
    return this.coalescer.busy('');
  }

  idle(): Promise<void> {
    return this.coalescer.idle();
  }
}
