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
