/**
 * A dispatch's git calls go first (decision 417, "A dispatch's git goes first"). A person waits
 * for a dispatch's answer; nobody waits for the radar's snapshots, the review sizes, provenance or
 * keep-fresh, and on a busy machine those, started by the session before, ran beside the next
 * dispatch: each of their git processes took a share of two cores the dispatch's own needed. While
 * a dispatch runs, every other git call waits to start until no dispatch runs; a call already
 * started goes on. A hold lasts at most `holdMaxMs` however many dispatches follow each other,
 * so the rest of the workspace is late, never stopped.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The longest any git call waits for dispatches, from the first of the ones running back to back. */
let holdMaxMs = 2_000;

const foreground = new AsyncLocalStorage<true>();
let running = 0;
let hold: { over: Promise<void>; end: () => void; timer: NodeJS.Timeout } | undefined;

/** Runs `work` in the foreground: its git calls go first, and others wait while it runs. */
export async function inForeground<T>(work: () => Promise<T>): Promise<T> {
  if (foreground.getStore() === true) return work();
  running++;
  if (hold === undefined) hold = startHold();
  try {
    return await foreground.run(true, work);
  } finally {
    running--;
    if (running === 0) endHold();
  }
}

/**
 * Runs `work` outside the foreground: what it starts (the listeners of an event a dispatch
 * publishes, its host's start) is no part of the dispatch and does not go first.
 */
export function inBackground<T>(work: () => T): T {
  return foreground.exit(work);
}

/** Sets the longest hold (a test that must not meet the bound on a busy machine). */
export function holdGitCallsAtMost(ms: number): void {
  holdMaxMs = ms;
}

/** Undefined when the caller may start git now; else what it waits for first. */
export function turnToRun(): Promise<void> | undefined {
  if (hold === undefined || foreground.getStore() === true) return undefined;
  return hold.over;
}

function startHold(): NonNullable<typeof hold> {
  let end = (): void => undefined;
  const over = new Promise<void>((resolve) => (end = resolve));
  // Past the bound, what waits goes, and nothing waits until the dispatches running now are done.
  const timer = setTimeout(() => {
    end();
    if (hold !== undefined) hold = { ...hold, over: Promise.resolve() };
  }, holdMaxMs);
  timer.unref();
  return { over, end, timer };
}

function endHold(): void {
  const ended = hold;
  hold = undefined;
  if (ended === undefined) return;
  clearTimeout(ended.timer);
  ended.end();
}
