import { describe, expect, it } from 'vitest';
import { Scheduler } from './index.js';

interface Item {
  id: string;
  tag?: string;
}

/** A scheduler over an in-memory queue whose starts settle when the test says so. */
function harness(slots: number) {
  const waiting: Item[] = [];
  const running = new Set<string>();
  const started: string[] = [];
  const pending = new Map<string, () => void>();
  const scheduler = new Scheduler<Item>({
    slots: () => slots,
    busy: (starting) => [...running].filter((id) => !starting(id)).length,
    waiting: () => waiting.filter((item) => !running.has(item.id)),
    id: (item) => item.id,
    start: (item) =>
      new Promise<void>((resolve) => {
        started.push(item.id);
        pending.set(item.id, () => {
          running.add(item.id);
          resolve();
        });
      }),
  });
  const settle = (id: string): void => pending.get(id)?.();
  const finish = (id: string): void => {
    running.delete(id);
    waiting.splice(
      waiting.findIndex((item) => item.id === id),
      1,
    );
  };
  return { scheduler, waiting, started, settle, finish };
}

describe('the scheduler', () => {
  it('starts waiting items first come, first served, only as many as there are slots', async () => {
    const h = harness(2);
    h.waiting.push({ id: 'a' }, { id: 'b' }, { id: 'c' });
    const pass = h.scheduler.run();
    expect(h.started).toEqual(['a', 'b']);
    expect(h.scheduler.used()).toBe(2);
    h.settle('a');
    h.settle('b');
    await pass;
    expect(h.started).toEqual(['a', 'b']);

    h.finish('a');
    const next = h.scheduler.run();
    expect(h.started).toEqual(['a', 'b', 'c']);
    h.settle('c');
    await next;
  });

  it('counts an item being started once, not again when it starts running', async () => {
    const h = harness(1);
    h.waiting.push({ id: 'a' }, { id: 'b' });
    const pass = h.scheduler.run();
    expect(h.scheduler.isStarting('a')).toBe(true);
    h.settle('a');
    await pass;
    expect(h.scheduler.isStarting('a')).toBe(false);
    expect(h.scheduler.used()).toBe(1);
    expect(h.started).toEqual(['a']);
  });

  it('starts what a call during a pass queued at once, not after the starts of that pass settle', async () => {
    const h = harness(3);
    h.waiting.push({ id: 'a' });
    const first = h.scheduler.run();
    h.waiting.push({ id: 'b' });
    const second = h.scheduler.run();
    // a's start (a host taking seconds) is still pending: b does not wait behind it (decision 310).
    expect(h.started).toEqual(['a', 'b']);
    expect(h.scheduler.used()).toBe(2);
    let done = false;
    void second.then(() => (done = true));
    h.settle('b');
    await new Promise((resolve) => setImmediate(resolve));
    // The call resolves once what it started settled and the pass it joined is done.
    expect(done).toBe(false);
    h.settle('a');
    await Promise.all([first, second]);
    expect(h.started).toEqual(['a', 'b']);
  });

  it('starts nothing twice when a call during a pass and the rerun of that pass both look', async () => {
    const h = harness(1);
    h.waiting.push({ id: 'a' }, { id: 'b' });
    const first = h.scheduler.run();
    const second = h.scheduler.run();
    expect(h.started).toEqual(['a']);
    h.settle('a');
    await Promise.all([first, second]);
    expect(h.started).toEqual(['a']);
  });

  it('holds an item while a gate says so, lets the ones behind it pass, and says why', async () => {
    const h = harness(5);
    let merged = false;
    const remove = h.scheduler.addGate({
      name: 'after',
      holds: (item) => (item.tag === 'after-1' && !merged ? 'waits for task 1 to merge' : undefined),
    });
    h.waiting.push({ id: 'a', tag: 'after-1' }, { id: 'b' });
    const pass = h.scheduler.run();
    expect(h.started).toEqual(['b']);
    expect(h.scheduler.held()).toEqual([{ id: 'a', gate: 'after', reason: 'waits for task 1 to merge' }]);
    h.settle('b');
    await pass;

    merged = true;
    const again = h.scheduler.run();
    expect(h.started).toEqual(['b', 'a']);
    expect(h.scheduler.held()).toEqual([]);
    h.settle('a');
    await again;
    remove();
  });

  it('forgets a removed gate', async () => {
    const h = harness(1);
    const remove = h.scheduler.addGate({ name: 'never', holds: () => 'closed' });
    h.waiting.push({ id: 'a' });
    await h.scheduler.run();
    expect(h.started).toEqual([]);
    remove();
    const pass = h.scheduler.run();
    expect(h.started).toEqual(['a']);
    h.settle('a');
    await pass;
  });
});
