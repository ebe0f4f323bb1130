/** Waiting on events instead of sleeping: tests resume the moment the event arrives. */

/** Collects events from an emitter callback and wakes whoever waits on them. */
export class EventRecorder<T> {
  readonly events: T[] = [];
  private readonly listeners = new Set<(event: T) => void>();

  readonly emit = (event: T): void => {
    this.events.push(event);
    for (const listener of [...this.listeners]) listener(event);
  };

  subscribe(listener: (event: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Resolves with the first event (at index `after` or later) that matches, already recorded or
 * yet to come; rejects after `timeoutMs` with the events seen so far, to make failures readable.
 */
export function waitForEvent<T, S extends T = T>(
  recorder: EventRecorder<T>,
  predicate: ((event: T) => event is S) | ((event: T) => boolean),
  timeoutMs = 30_000,
  after = 0,
): Promise<S> {
  const found = recorder.events.slice(after).find(predicate);
  if (found !== undefined) return Promise.resolve(found as S);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      const seen = recorder.events.map((e) => JSON.stringify(e).slice(0, 300)).join('\n  ');
      reject(new Error(`No matching event within ${timeoutMs} ms. Events so far:\n  ${seen}`));
    }, timeoutMs);
    const unsubscribe = recorder.subscribe((event) => {
      if (!predicate(event)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(event as S);
    });
  });
}

/** Resolves when the promise settles, or rejects after `timeoutMs` saying what was awaited. */
export function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)),
      timeoutMs,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export interface PollOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** How long to wait between reads (default 50 ms). */
  intervalMs?: number;
}

/**
 * For state that sends no event — another process's tables, a file another process writes, a
 * process's life: reads until `done(value)` holds and returns that value. A read that throws is
 * read again (its error is kept for the failure message). After `timeoutMs` it rejects saying
 * what was awaited and the last value or error it saw. Prefer `waitForEvent` wherever an event
 * tells the moment.
 */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  what: string,
  { timeoutMs = 10_000, intervalMs = 50 }: PollOptions = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await read();
      if (done(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (performance.now() > deadline) {
      const seen =
        last === undefined
          ? ''
          : 'error' in last
            ? `; last error: ${last.error instanceof Error ? last.error.message : String(last.error)}`
            : `; last: ${typeof last.value === 'string' ? last.value : JSON.stringify(last.value)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The one way to wait on a condition with no event to follow: reads `check` until it gives a value
 * that is neither `undefined` nor `false`, and returns that value (a plain condition returns `true`).
 */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  options?: PollOptions,
): Promise<Exclude<T, undefined | false>> {
  const value = await pollUntil(check, (held) => held !== undefined && held !== false, what, options);
  return value as Exclude<T, undefined | false>;
}
