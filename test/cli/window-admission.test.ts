/**
 * Admission by subscription window (decision 300) end to end, with the scripted agent reporting
 * its windows as claude and codex do from the API's headers: a dispatch starts while the window has
 * room; once the window is used up a new dispatch waits in the queue with the reason in `ls`,
 * `--force` starts one anyway, and when the wall clock (libfaketime) passes the reset the held one
 * starts by itself.
 */
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { CostReport } from '../../src/api/watchdog.js';
import type { TestBaton } from '../support/baton.js';
import { eachTestOnFakeClock, type FakeClock } from '../support/fake-clock.js';

let t: TestBaton;
let clock: FakeClock;
let repo: string;
eachTestOnFakeClock(
  { BATON_WATCHDOG_TICK_MS: '100' },
  (baton, fake, dir) => ((t = baton), (clock = fake), (repo = dir)),
);

const reportWindow = (usedPercent: number, resetsAt: string) => ({
  windows: [{ name: '5h', usedPercent, windowMinutes: 300, resetsAt }],
});

function dispatch(name: string, steps: unknown[], extra: string[] = []): Promise<SessionView> {
  return t.json<SessionView>(
    ['dispatch', `${name} works`, '--name', name, '--script', t.script(steps), ...extra],
    { cwd: repo },
  );
}

describe('admission by subscription window', () => {
  it('starts work while the window has room, holds it once used up, lets --force through, and starts the held one at the reset', async () => {
    const resetsAt = new Date(Date.now() + 2 * 3600_000).toISOString();
    // Room in the window: nothing is held.
    await dispatch('roomy', [reportWindow(40, resetsAt), { say: 'done' }]);
    await t.waitForState('roomy', 'ready_for_review');
    const next = await dispatch('next', [{ say: 'done' }]);
    expect(next.heldBy ?? null).toBeNull();
    await t.waitForState('next', 'ready_for_review');

    // The window runs out.
    await dispatch('spender', [reportWindow(100, resetsAt), { say: 'done' }]);
    await t.waitForState('spender', 'ready_for_review');
    const report = await t.json<CostReport>(['cost'], { cwd: repo });
    expect(report.windows).toContainEqual(
      expect.objectContaining({ agent: 'scripted', name: '5h', usedPercent: 100, resetsAt }),
    );

    const held = await dispatch('held', [{ write: { path: 'held.txt', content: 'ran\n' } }, { say: 'done' }]);
    expect(held.state).toBe('queued');
    expect(held.heldBy).toMatch(
      /^waiting for the scripted 5h window: used up until it resets in (119 min|2 h) \(--force starts it now\)$/,
    );
    expect(await t.ok(['ls'])).toMatch(
      /queued #1: waiting for the scripted 5h window: used up until it resets in/,
    );

    // A person who knows better starts one anyway.
    await dispatch('forced', [{ say: 'done' }], ['--force']);
    await t.waitForState('forced', 'ready_for_review');
    const { session: still } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'held' } });
    expect(still.state).toBe('queued');

    // Past the reset the watchdog's next look lets it start, without a new event to prompt it.
    clock.set(2 * 3600 + 60);
    await t.waitForState('held', 'ready_for_review');
  });
});

describe('admission by subscription window across a supervisor restart', () => {
  it('a --force dispatch still waiting (on the count cap) is let through by the window after the supervisor restarts', async () => {
    t.env.BATON_MAX_CONCURRENT = '1';
    const resetsAt = new Date(Date.now() + 2 * 3600_000).toISOString();
    // The window is used up, and the one slot is taken by a session still at work.
    await dispatch('spender', [reportWindow(100, resetsAt), { sleep: 600_000 }]);
    await t.waitForEvent('spender', (e) => e.type === 'limits.reported');
    const forced = await dispatch('forced', [{ say: 'done' }], ['--force']);
    expect(forced.state).toBe('queued');
    const held = await dispatch('held', [{ say: 'done' }]);
    expect(held.state).toBe('queued');

    await t.ok(['daemon', 'stop']);
    await t.ok(['daemon', 'start']);
    // The slot frees: the forced one starts; the other still waits for the window.
    await t.ok(['stop', 'spender']);
    await t.waitForState('forced', 'ready_for_review');
    const { session: still } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'held' } });
    expect(still.state).toBe('queued');
    expect(still.heldBy).toMatch(/^waiting for the scripted 5h window: used up/);
  });
});
