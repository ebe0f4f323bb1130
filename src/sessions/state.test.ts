import { describe, expect, it } from 'vitest';
import { deriveState, trailingQuestion } from './state.js';

const working = { state: 'working' as const };
const none = { stopRequested: false };

describe('session state derivation', () => {
  it('is working once a turn starts', () => {
    expect(deriveState({ state: 'starting' }, { type: 'turn.started' }, none)).toEqual({ state: 'working' });
  });

  it('needs input while an approval is pending, with the request as reason', () => {
    const next = deriveState(working, { type: 'approval.requested', requestId: 'r1', tool: 'Bash', input: 'rm -rf build' }, none);
    expect(next).toEqual({ state: 'needs_input', reason: { kind: 'approval', requestId: 'r1', tool: 'Bash', input: 'rm -rf build' } });
    expect(deriveState(next!, { type: 'approval.resolved', requestId: 'r1', decision: 'allow' }, none)).toEqual({ state: 'working' });
  });

  it('does not change state on tool, message or usage events', () => {
    expect(deriveState(working, { type: 'tool.finished', toolId: 't', tool: 'Task', ok: true }, none)).toBeUndefined();
    expect(deriveState(working, { type: 'message.added', role: 'assistant', text: 'subagent done' }, none)).toBeUndefined();
    expect(deriveState(working, { type: 'usage.reported', inputTokens: 1, outputTokens: 1 }, none)).toBeUndefined();
  });

  it('is ready for review after a successful turn, failed after an error, stopped when the user stopped it', () => {
    expect(deriveState(working, { type: 'turn.completed', outcome: 'success' }, none)).toEqual({ state: 'ready_for_review' });
    expect(deriveState(working, { type: 'turn.completed', outcome: 'error', error: 'HTTP 500' }, none)).toEqual({
      state: 'failed',
      reason: { kind: 'error', message: 'HTTP 500' },
    });
    // The agent reports the abort as an error; the user's stop wins.
    expect(deriveState(working, { type: 'turn.completed', outcome: 'error', error: 'aborted' }, { stopRequested: true })?.state).toBe('stopped');
  });

  it('needs input when the turn ends with a question to the user', () => {
    const next = deriveState(working, { type: 'turn.completed', outcome: 'success' }, { stopRequested: false, lastAssistantText: 'I looked.\n\nShould I keep onChange?' });
    expect(next).toEqual({ state: 'needs_input', reason: { kind: 'question', text: 'Should I keep onChange?' } });
  });

  it('takes only a final question mark as a question', () => {
    expect(trailingQuestion('Is it done? Yes, all tests pass.')).toBeUndefined();
    expect(trailingQuestion('Done.\n\nWant me to also update the docs?  ')).toBe('Want me to also update the docs?');
    expect(trailingQuestion(undefined)).toBeUndefined();
  });
});
