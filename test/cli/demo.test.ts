import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { SESSION_STATES } from '../../src/events/index.js';
import { TestBaton } from '../support/baton.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let t: TestBaton;
afterEach(() => t.cleanup());

describe('the demo (`npm start`)', () => {
  it('creates a demo repository whose sessions show every state, and says what to try next', async () => {
    // As `npm start` runs it: no agent configured, and the project's own node_modules/.bin (with
    // the codex, gemini and opencode the end-to-end tests use, none signed in) first on PATH.
    t = new TestBaton({
      BATON_MAX_CONCURRENT: '4',
      BATON_AGENT: '',
      PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    });
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
