/**
 * Review capacity as a throttle, through the real binary: with a cap on the work waiting for
 * review in Baton's config, a new dispatch waits queued while the cap is reached, says why, and
 * starts once a review lands or is dismissed (decision 153).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

function capAt(reviewCapacity: Record<string, number>): void {
  mkdirSync(t.home, { recursive: true });
  writeFileSync(join(t.home, 'config.json'), JSON.stringify({ reviewCapacity }));
}

const dispatch = (name: string, steps: unknown[]): Promise<SessionView> =>
  t.json<SessionView>(['dispatch', `task ${name}`, '--name', name, '--script', t.script(steps)], {
    cwd: repo,
  });

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n') + '\n';

describe('review capacity', () => {
  it('holds a new dispatch queued while as many sessions wait for review as the cap allows, saying why, and starts it once one is dismissed', async () => {
    capAt({ sessions: 1 });
    await dispatch('first', [{ write: { path: 'a.txt', content: lines(2) } }]);
    await t.waitForState('first', 'ready_for_review');
    await dispatch('second', [{ say: 'my turn' }]);
    const held = await t.waitForEvent('second', (e) => e.type === 'state.changed' && e.to === 'queued');
    expect(held.type).toBe('state.changed');
    const view = (await t.client().call('GET /api/sessions/:ref', { params: { ref: 'second' } })).session;
    expect(view.state).toBe('queued');
    expect(view.heldBy).toBe(
      'review capacity: 1 session waits for review (cap 1); land, dismiss or remove one to go on',
    );
    await t.ok(['done', 'first'], { cwd: repo });
    await t.waitForState('second', 'ready_for_review');
  });

  it('counts changed lines: a session whose work passes the line cap holds the next until it is removed', async () => {
    capAt({ lines: 10 });
    await dispatch('big', [{ write: { path: 'big.txt', content: lines(12) } }]);
    await t.waitForState('big', 'ready_for_review');
    await dispatch('next', [{ say: 'my turn' }]);
    await t.waitForEvent('next', (e) => e.type === 'state.changed' && e.to === 'queued');
    const waitHeld = async (): Promise<string | undefined> => {
      for (;;) {
        const view = (await t.client().call('GET /api/sessions/:ref', { params: { ref: 'next' } })).session;
        if (view.heldBy !== undefined || view.state !== 'queued') return view.heldBy;
        // The size is measured in the background as the session becomes ready: wait for the pass after it.
        await t
          .waitForEvent('big', (e) => e.seq > view.lastSeq || e.type === 'state.changed', 2_000)
          .catch(() => undefined);
      }
    };
    expect(await waitHeld()).toBe(
      'review capacity: 12 changed lines wait for review (cap 10); land, dismiss or remove one to go on',
    );
    await t.ok(['rm', 'big', '--force'], { cwd: repo });
    await t.waitForState('next', 'ready_for_review');
  });
});
