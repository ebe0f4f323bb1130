/**
 * A usage limit mid-work (decision 262), end to end: the scripted agent's turn ends at its limit
 * with the window's reset two hours away; the session is paused — needs input, saying why and
 * until when — not failed; the wall clock (libfaketime, test/support/fake-clock.ts) jumps past the
 * reset and the watchdog resumes the same conversation with a short "continue" turn.
 */
import { describe, expect, it } from 'vitest';
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

describe('a session at its usage limit', () => {
  it('pauses until the reset, then goes on in the same conversation with a continue turn', async () => {
    const resetsAt = new Date(Date.now() + 2 * 3600_000).toISOString();
    const script = {
      steps: [
        { write: { path: 'half.txt', content: 'first half\n' } },
        { limit: { message: "You've hit your usage limit", window: '5h', resetsAt } },
      ],
      onReply: [{ write: { path: 'rest.txt', content: '{{reply}}\n' } }, { say: 'finished' }],
    };
    await t.ok(
      [
        'dispatch',
        'long work',
        '--name',
        'long',
        '--script',
        t.script(script.steps, { onReply: script.onReply }),
      ],
      { cwd: repo },
    );
    const paused = await t.waitForState('long', 'needs_input');
    expect(paused.reason).toEqual({
      kind: 'note',
      message: `paused at the usage limit (5h window): You've hit your usage limit; resumes at ${resetsAt}`,
      until: resetsAt,
    });
    expect(await t.ok(['ls'])).toMatch(/paused at the usage limit \(5h window\)/);

    // Before the reset nothing happens; past it, the watchdog's next look resumes the session.
    clock.set(2 * 3600 + 60);
    await t.waitForState('long', 'ready_for_review');
    const events = (await t.ok(['logs', 'long', '--json']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as BatonEvent);
    const states = events.flatMap((e) => (e.type === 'state.changed' ? [e.to] : []));
    expect(states).not.toContain('failed');
    const user = events.flatMap((e) => (e.type === 'message.added' && e.role === 'user' ? [e.text] : []));
    expect(user.at(-1)).toMatch(/^The usage limit has reset\. Continue where you left off/);
    // One conversation: one session start, the turn after the reset its second.
    expect(events.filter((e) => e.type === 'session.started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'turn.started')).toHaveLength(2);
  });
});
