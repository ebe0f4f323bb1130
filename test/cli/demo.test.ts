import { afterEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { SESSION_STATES } from '../../src/events/index.js';
import { TestBaton } from '../support/baton.js';

let t: TestBaton;
afterEach(() => t.cleanup());

describe('the demo (`npm start`)', () => {
  it('creates a demo repository whose sessions show every state, and says what to try next', async () => {
    t = new TestBaton({ BATON_MAX_CONCURRENT: '4' });
    const output = await t.ok(['demo']);
    expect(output).toContain('Try next');
    expect(output).toContain('baton reply demo-question');
    const sessions = await t.json<SessionView[]>(['ls']);
    const states = new Set(sessions.map((s) => s.state));
    // Starting and preparing are passing states (preparing only in repositories with setup steps).
    for (const state of SESSION_STATES.filter((s) => s !== 'starting' && s !== 'preparing'))
      expect(states, `no ${state} session`).toContain(state);
    const question = sessions.find((s) => s.name === 'demo-question');
    expect(question?.reason).toMatchObject({ kind: 'question' });

    // Running it again replaces the old demo instead of failing on taken names.
    await t.ok(['demo']);
    expect((await t.json<SessionView[]>(['ls'])).filter((s) => s.name === 'demo-review')).toHaveLength(1);
  });
});
