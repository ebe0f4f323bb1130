/**
 * The wall clock jumps back an hour and forward two while sessions queue and run (libfaketime
 * moves the clock of this test's supervisor, hosts and CLI; see test/support/fake-clock.ts).
 * What must hold: the queue stays first in, first out, and workspace events stay in the order
 * they happened, by their sequence numbers, whatever their timestamps say; nothing times out or
 * hangs for the jump; the supervisor's uptime is never negative; an idle host is let go after
 * its idle time, neither at once nor hours late.
 */
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import type { TestBaton } from '../support/baton.js';
import { eachTestOnFakeClock, type FakeClock } from '../support/fake-clock.js';

let t: TestBaton;
let clock: FakeClock;
let repo: string;
eachTestOnFakeClock(
  { BATON_MAX_CONCURRENT: '1' },
  (baton, fake, dir) => ((t = baton), (clock = fake), (repo = dir)),
);

const HOUR = 3600;

describe('a wall clock that jumps', () => {
  it('keeps the queue first in, first out and workspace events in order, back an hour and forward two', async () => {
    await t.ok(['daemon', 'start']);
    await t.ok(['dispatch', 'hold the slot', '--name', 'holder', '--script', t.script([{ ask: 'go on?' }])], {
      cwd: repo,
    });
    await t.waitForState('holder', 'needs_input');

    // Each dispatched at a wall-clock time earlier or later than the one before.
    const names = ['first', 'second', 'third', 'fourth'];
    const offsets = [0, -HOUR, 2 * HOUR, -30];
    for (const [i, name] of names.entries()) {
      clock.set(offsets[i] as number);
      const queued = await t.json<SessionView>(
        ['dispatch', name, '--name', name, '--script', t.script([{ say: `${name} ran` }])],
        { cwd: repo },
      );
      expect(queued).toMatchObject({ state: 'queued', queuePosition: i + 1 });
    }
    const listed = (await t.json<SessionView[]>(['ls', '--json'])).filter((s) => s.state === 'queued');
    expect(listed.map((s) => [s.name, s.queuePosition])).toEqual(names.map((name, i) => [name, i + 1]));
    // The timestamps really went back: the second was dispatched "before" the first.
    expect(Date.parse(listed[1]!.createdAt)).toBeLessThan(Date.parse(listed[0]!.createdAt));

    // One slot: each starts when the one before it has finished, in dispatch order.
    clock.set(-HOUR);
    await t.ok(['reply', 'holder', 'yes']);
    for (const name of names) await t.waitForState(name, 'ready_for_review');
    const started = await Promise.all(
      names.map(async (name) => (await log(name)).find((e) => e.type === 'session.started')),
    );
    const workspace = (await t.ok(['events', '--json']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as WorkspaceEvent);
    const seqs = workspace.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const working = names.map(
      (name) =>
        workspace.find(
          (e) => e.type === 'session.state_changed' && e.data.name === name && e.data.to === 'working',
        )?.seq,
    );
    expect(working.every((seq) => seq !== undefined)).toBe(true);
    expect(working).toEqual([...working].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(started.every((e) => e !== undefined)).toBe(true);

    // A session's own events are in seq order too, whatever their timestamps.
    const holderLog = await log('holder');
    expect(holderLog.map((e) => e.seq)).toEqual(holderLog.map((_, i) => i + 1));

    const status = JSON.parse(await t.ok(['daemon', 'status', '--json'])) as { uptimeSeconds: number };
    expect(status.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });
});

describe('an idle host under a clock that jumps', () => {
  it('is let go after its idle time by the monotonic clock: not at once when the clock jumps ahead, not hours late when it jumps back', async () => {
    // The watchdog lets idle hosts go; it looks every 100 ms here.
    Object.assign(t.env, { BATON_IDLE_HOST_SECONDS: '2', BATON_WATCHDOG_TICK_MS: '100' });
    await t.ok(['daemon', 'start']);
    for (const [name, offset] of [
      ['ahead', 2 * HOUR],
      ['behind', -2 * HOUR],
    ] as const) {
      await t.ok(['dispatch', name, '--name', name, '--script', t.script([{ say: 'done' }])], { cwd: repo });
      await t.waitForState(name, 'ready_for_review');
      const seen = performance.now();
      clock.set(offset);
      const ended = await t.waitForEvent(name, (e) => e.type === 'session.ended', 15_000);
      expect(ended).toMatchObject({ reason: 'idle' });
      // Two seconds after the turn, less the moments it took us to see the turn end.
      expect(performance.now() - seen, name).toBeGreaterThan(1_000);
    }
  });
});

async function log(ref: string): Promise<BatonEvent[]> {
  return (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BatonEvent);
}
