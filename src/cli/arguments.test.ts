import { describe, expect, it } from 'vitest';
import { EXIT_CODES, InvalidInputError } from '../shared/errors.js';
import { MAX_SESSION_REF_LENGTH, sessionRef } from './arguments.js';
import { agentName } from './flags.js';

describe("the CLI's argument checks", () => {
  it('takes a session reference up to its limit, and refuses a longer one with the invalid-input exit code', () => {
    expect(sessionRef('alpha')).toBe('alpha');
    expect(sessionRef('x'.repeat(MAX_SESSION_REF_LENGTH))).toHaveLength(MAX_SESSION_REF_LENGTH);
    let refused: unknown;
    try {
      sessionRef('y'.repeat(MAX_SESSION_REF_LENGTH + 1));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).exitCode).toBe(EXIT_CODES.invalidInput.code);
    // The message quotes the start of the reference, not all of it.
    expect((refused as Error).message).toMatch(/"y{24}…" is 201 characters long/);
    expect((refused as Error).message.length).toBeLessThan(300);
  });

  it("takes any well-formed agent name, Baton's own or a user's, and refuses a malformed one naming the agents", () => {
    expect(agentName('claude')).toBe('claude');
    expect(agentName('my-acp-agent')).toBe('my-acp-agent');
    expect(() => agentName('Bad Name!')).toThrow(/"Bad Name!" is not an agent name.*the agents are .*claude/);
    expect(() => agentName('')).toThrow(/is not an agent name/);
  });
});
