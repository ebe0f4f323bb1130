/**
 * The idle rule on its own monotonic clock, which the test moves: when it asks a host to let its
 * agent go, when it does not, and when its clock starts again.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BatonEvent, EventBody } from '../events/index.js';
import { IdleHosts, type IdleCandidate } from './idle.js';

const MIN = 60_000;
const LIMIT = 30 * MIN;
let now: number;
let asked: string[];
/** What the stand-in host answers: let go, refused (in use), or unreachable. */
let answer: 'released' | 'in_use' | 'unreachable';
let idle: IdleHosts;

let seq = 0;
const event = (body: EventBody): BatonEvent =>
  ({ ...body, seq: ++seq, ts: new Date(0).toISOString() }) as BatonEvent;
const ready = (id: string, extra: Partial<IdleCandidate> = {}): IdleCandidate => ({
  id,
  state: 'ready_for_review',
  host_pid: 4242,
  ...extra,
});
const tick = (...sessions: IdleCandidate[]): Promise<void> =>
  idle.tick(sessions.map((session) => ({ session, limitMs: LIMIT })));

beforeEach(() => {
  // Far from zero, and unrelated to any wall-clock time: a monotonic clock's origin is arbitrary.
  now = 5_000_000;
  asked = [];
  answer = 'released';
  idle = new IdleHosts(
    () => now,
    async (id, message) => {
      asked.push(`${id}: ${message}`);
      if (answer === 'unreachable') throw new Error('The session host is not reachable');
      return answer === 'released';
    },
  );
});

describe('the idle rule', () => {
  it('lets an agent go once it has rested ready for review for the limit, and only once', async () => {
    idle.observe('a', event({ type: 'state.changed', from: 'working', to: 'ready_for_review' }));
    now += LIMIT - 1;
    await tick(ready('a'));
    expect(asked).toEqual([]);
    now += 1;
    const first = tick(ready('a'));
    // Asked and not yet answered: the next tick does not ask again.
    await tick(ready('a'));
    await first;
    expect(asked).toEqual(['a: unused for 30 min after the turn; a reply resumes the conversation']);
    // Gone: its row says so, and nothing more is asked of it.
    now += 2 * LIMIT;
    await tick(ready('a', { host_pid: null }));
    expect(asked).toHaveLength(1);
  });

  it('leaves alone sessions that are not resting with a host: at work, waiting for an answer, already let go, or kept by their repository', async () => {
    const sessions = [
      ready('w', { state: 'working' }),
      ready('q', { state: 'needs_input' }),
      ready('gone', { host_pid: null }),
    ];
    await tick(...sessions);
    await idle.tick([{ session: ready('kept'), limitMs: undefined }]);
    now += 10 * LIMIT;
    await tick(...sessions);
    await idle.tick([{ session: ready('kept'), limitMs: undefined }]);
    expect(asked).toEqual([]);
  });

  it('starts the clock again when the host refuses because a request is being answered', async () => {
    await tick(ready('a'));
    now += LIMIT;
    answer = 'in_use';
    await tick(ready('a'));
    expect(asked).toHaveLength(1);
    // The session was in use at the refusal: a full limit from then, not from its first rest.
    answer = 'released';
    now += LIMIT - 1;
    await tick(ready('a'));
    expect(asked).toHaveLength(1);
    now += 1;
    await tick(ready('a'));
    expect(asked).toHaveLength(2);
  });

  it('starts the clock again when the host cannot be reached, and says nothing else', async () => {
    await tick(ready('a'));
    now += LIMIT;
    answer = 'unreachable';
    await tick(ready('a'));
    now += LIMIT - 1;
    await tick(ready('a'));
    expect(asked).toHaveLength(1);
  });

  it('starts the clock again when the state leaves ready for review, for a reply’s turn, and comes back', async () => {
    await tick(ready('a'));
    now += LIMIT - MIN;
    idle.observe('a', event({ type: 'state.changed', from: 'ready_for_review', to: 'working' }));
    now += 30_000;
    idle.observe('a', event({ type: 'state.changed', from: 'working', to: 'ready_for_review' }));
    now += MIN;
    // Between ticks it worked and came back: well past the limit from its first rest, a minute from its last.
    await tick(ready('a'));
    expect(asked).toEqual([]);
    now += LIMIT - MIN;
    await tick(ready('a'));
    expect(asked).toHaveLength(1);
  });

  it('starts the clock again when a tick finds the session working, even if no event was seen', async () => {
    await tick(ready('a'));
    now += LIMIT - 1;
    await tick(ready('a', { state: 'working' }));
    now += 1;
    await tick(ready('a'));
    expect(asked).toEqual([]);
  });

  it('after a restart, lets nothing go before a full limit of its own: the sessions’ old timestamps do not count', async () => {
    // A new watchdog (a restarted supervisor) meets a session that has been ready for hours.
    await tick(ready('old'));
    expect(asked).toEqual([]);
    now += LIMIT - 1;
    await tick(ready('old'));
    expect(asked).toEqual([]);
    now += 1;
    await tick(ready('old'));
    expect(asked).toHaveLength(1);
  });
});
