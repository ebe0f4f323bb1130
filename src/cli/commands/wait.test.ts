import { describe, expect, it } from 'vitest';
import { exitCodeOf, WAIT_EXIT, type Outcome } from './wait.js';

const outcome = (state: Outcome['state']): Outcome => ({ id: state, name: state, state, reason: null });

describe("wait's exit code", () => {
  it('is 0 only when every session is ready for review or completed', () => {
    expect(exitCodeOf([outcome('ready_for_review'), outcome('completed')], false)).toBe(WAIT_EXIT.ok);
  });

  it('names the state that most needs attention: failed, stopped, removed, then needs input', () => {
    expect(exitCodeOf([outcome('needs_input'), outcome('removed'), outcome('failed')], false)).toBe(
      WAIT_EXIT.failed,
    );
    expect(exitCodeOf([outcome('needs_input'), outcome('stopped'), outcome('removed')], false)).toBe(
      WAIT_EXIT.stopped,
    );
    expect(exitCodeOf([outcome('needs_input'), outcome('removed')], false)).toBe(WAIT_EXIT.removed);
    expect(exitCodeOf([outcome('ready_for_review'), outcome('needs_input')], false)).toBe(
      WAIT_EXIT.needsInput,
    );
  });

  it('is 124 on a timeout whatever settled before it', () => {
    expect(exitCodeOf([outcome('failed')], true)).toBe(124);
  });
});
