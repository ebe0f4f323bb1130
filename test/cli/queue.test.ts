import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
beforeEach(() => {
  t = new TestBaton({ BATON_MAX_CONCURRENT: '1' });
  repo = t.repo();
});
afterEach(() => t.cleanup());

describe('the queue', () => {
  it('starts queued sessions first in, first out', async () => {
    await t.ok(['dispatch', 'hold the slot', '--name', 'holder', '--script', t.script([{ ask: 'go on?' }])], {
      cwd: repo,
    });
    await t.waitForState('holder', 'needs_input');
    const names = ['first', 'second', 'third'];
    for (const [i, name] of names.entries()) {
      const queued = await t.json<SessionView>(
        ['dispatch', name, '--name', name, '--script', t.script([{ say: `${name} ran` }])],
        { cwd: repo },
      );
      expect(queued).toMatchObject({ state: 'queued', queuePosition: i + 1 });
    }

    // One slot: each starts only when the one before it has finished its turn.
    await t.ok(['reply', 'holder', 'yes']);
    for (const name of names) await t.waitForState(name, 'ready_for_review');
    const starts = await Promise.all(
      names.map(async (name) => ({ name, at: Date.parse((await startedEvent(name)).ts) })),
    );
    expect([...starts].sort((a, b) => a.at - b.at).map((s) => s.name)).toEqual(names);
  });
});

async function startedEvent(ref: string): Promise<BatonEvent> {
  const events = (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BatonEvent);
  const started = events.filter((e) => e.type === 'session.started');
  expect(started).toHaveLength(1);
  return started[0]!;
}
