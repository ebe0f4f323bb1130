/**
 * A usage limit in the middle of a fan-out (decisions 262 and 301), end to end with the scripted
 * agent: both batches finish some of their items, say so (`done: <item>`), and stop at the limit;
 * the fan-out counts the finished items, the wall clock (libfaketime) passes the reset, and each
 * batch resumes in its own conversation told which of its items are finished and which are left.
 * No batch is started again and no finished item is handed out again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FanoutView } from '../../src/api/attempts.js';
import type { BatonEvent } from '../../src/events/index.js';
import type { TestBaton } from '../support/baton.js';
import { eachTestOnFakeClock, type FakeClock } from '../support/fake-clock.js';

let t: TestBaton;
let clock: FakeClock;
let repo: string;
eachTestOnFakeClock(
  { BATON_WATCHDOG_TICK_MS: '100' },
  (baton, fake, dir) => ((t = baton), (clock = fake), (repo = dir)),
);

async function events(ref: string): Promise<BatonEvent[]> {
  return (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BatonEvent);
}

describe('a fan-out at its usage limit', () => {
  it('pauses its batches, counts the finished items, and resumes each at the reset with what is left', async () => {
    const resetsAt = new Date(Date.now() + 2 * 3600_000).toISOString();
    const file = join(t.root, 'items.txt');
    writeFileSync(file, ['item-1', 'item-2', 'item-3', 'item-4', 'item-5', 'item-6'].join('\n'));
    // One script for both batches: a `done:` line counts only for the batch holding the item.
    const script = t.script(
      [
        { say: 'done: item-1\ndone: item-4' },
        { say: 'done: item-2' },
        { limit: { message: "You've hit your usage limit", window: '5h', resetsAt } },
      ],
      { onReply: [{ say: 'done: item-3\ndone: item-5\ndone: item-6' }, { say: 'finished' }] },
    );
    const started = await t.json<FanoutView>(
      ['fanout', file, '--batch', '3', '--name', 'fl', '--prompt', 'tidy each', '--script', script],
      { cwd: repo },
    );
    expect(started.batches.map((b) => b.items)).toEqual([
      ['item-1', 'item-2', 'item-3'],
      ['item-4', 'item-5', 'item-6'],
    ]);
    for (const name of ['fl-b1', 'fl-b2']) {
      const paused = await t.waitForState(name, 'needs_input');
      expect(paused.reason).toMatchObject({ kind: 'note', until: resetsAt });
    }
    const atLimit = await t.json<FanoutView>(['fanout', 'show', started.id], { cwd: repo });
    expect(atLimit).toMatchObject({ state: 'running', items: 6, itemsFinished: 3, running: 2, done: 0 });
    expect(atLimit.batches.map((b) => b.finished)).toEqual([['item-1', 'item-2'], ['item-4']]);
    expect(await t.ok(['fanout', 'show', started.id], { cwd: repo })).toContain('3 of 6 items finished');

    clock.set(2 * 3600 + 60);
    const finished = await t.workspaceEvent(
      (e) => e.type === 'attempt.fanout_finished' && e.data.groupId === started.id,
    );
    expect(finished.data).toMatchObject({ batches: 2, done: 2, failed: 0 });
    const report = await t.json<FanoutView>(['fanout', 'show', started.id], { cwd: repo });
    expect(report.itemsFinished).toBe(6);
    // Nothing started again: one session per batch, no retry, each in its one conversation.
    expect(report.batches.map((b) => b.tries.map((x) => x.name))).toEqual([['fl-b1'], ['fl-b2']]);
    const told = {
      'fl-b1': 'already finished (do not redo them): item-1, item-2. Items left: item-3.',
      'fl-b2': 'already finished (do not redo them): item-4. Items left: item-5, item-6.',
    };
    for (const [name, ledger] of Object.entries(told)) {
      const log = await events(name);
      expect(log.filter((e) => e.type === 'session.started')).toHaveLength(1);
      expect(log.filter((e) => e.type === 'turn.started')).toHaveLength(2);
      const user = log.flatMap((e) => (e.type === 'message.added' && e.role === 'user' ? [e.text] : []));
      expect(user.at(-1)).toMatch(/^The usage limit has reset\. Continue where you left off/);
      expect(user.at(-1)).toContain(ledger);
    }
  });
});
