import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalesce.js';

/** A run that finishes only when the test says so. */
function gatedRuns(): {
  runs: string[];
  finish: () => void;
  coalescer: Coalescer;
  started: () => Promise<void>;
} {
  const runs: string[] = [];
  const gates: (() => void)[] = [];
  let onStart: (() => void) | undefined;
  const coalescer = new Coalescer(
    (key) =>
      new Promise<void>((resolve) => {
        runs.push(key);
        gates.push(resolve);
        onStart?.();
      }),
  );
  return {
    runs,
    coalescer,
    finish: () => gates.shift()?.(),
    started: () => new Promise<void>((resolve) => (onStart = resolve)),
  };
}

describe('coalescing runs', () => {
  it('runs one at a time per key, and folds every request made meanwhile into one more run', async () => {
    const { runs, finish, coalescer, started } = gatedRuns();
    const first = coalescer.request('s1');
    expect(runs).toEqual(['s1']);
    const second = coalescer.request('s1');
    const third = coalescer.request('s1');
    const fourth = coalescer.request('s1');
    expect(runs).toEqual(['s1']);
    expect(coalescer.busy('s1')).toBe(true);
    const secondStarted = started();
    finish();
    await first;
    await secondStarted;
    expect(runs).toEqual(['s1', 's1']);
    finish();
    await Promise.all([second, third, fourth]);
    expect(runs).toEqual(['s1', 's1']);
    expect(coalescer.busy('s1')).toBe(false);
  });

  it('runs different keys side by side', async () => {
    const { runs, finish, coalescer } = gatedRuns();
    const a = coalescer.request('a');
    const b = coalescer.request('b');
    expect(runs).toEqual(['a', 'b']);
    finish();
    finish();
    await Promise.all([a, b]);
    await coalescer.idle();
  });

  it('keeps going after a run fails: the next request runs again', async () => {
    let calls = 0;
    const coalescer = new Coalescer(async () => {
      calls++;
      if (calls === 1) throw new Error('no such remote');
    });
    await coalescer.request('s');
    await coalescer.request('s');
    expect(calls).toBe(2);
  });
});
