import { afterEach, describe, expect, it, vi } from 'vitest';
import { RetryTimer } from './retry.js';

afterEach(() => vi.useRealTimers());

describe('a retry with backoff', () => {
  it('runs again after the delay, doubling it to the ceiling, back to the first after a success, one pending at a time, none once cancelled', () => {
    vi.useFakeTimers();
    const runs: number[] = [];
    const retry = new RetryTimer(() => runs.push(Date.now()), { firstMs: 100, maxMs: 300 });
    const start = Date.now();
    const after = (): number[] => runs.map((t) => t - start);
    retry.failed();
    vi.advanceTimersByTime(100);
    expect(after()).toEqual([100]);
    retry.failed();
    vi.advanceTimersByTime(200);
    retry.failed();
    vi.advanceTimersByTime(300);
    retry.failed();
    vi.advanceTimersByTime(300);
    expect(after()).toEqual([100, 300, 600, 900]);
    retry.succeeded();
    retry.failed();
    // A second failure before the retry replaces it: one run, after the (doubled) delay.
    retry.failed();
    vi.advanceTimersByTime(200);
    expect(after()).toEqual([100, 300, 600, 900, 1100]);
    retry.failed();
    retry.cancel();
    vi.advanceTimersByTime(1000);
    expect(runs).toHaveLength(5);
  });
});
