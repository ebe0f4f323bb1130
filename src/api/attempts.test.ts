import { describe, expect, it } from 'vitest';
import { AttemptAgent, FanoutRequest } from './attempts.js';

/** An object nested `depth` deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('the attempts schemas', () => {
  it('take any well-formed agent name (the supervisor knows which exist), and name a malformed one, quoted and cut short', () => {
    // Whether an agent is called so is the registry's to say at dispatch (decision 280).
    expect(AttemptAgent.safeParse('my-agent').success).toBe(true);
    expect(AttemptAgent.safeParse('Aider!').error?.issues[0]?.message).toBe(
      '"Aider!" is not an agent name: lowercase letters, digits and dashes, starting with a letter',
    );
    expect(AttemptAgent.safeParse('x'.repeat(500)).error?.issues[0]?.message).toMatch(
      /^"x{60}…" is not an agent name/,
    );
  });

  it('describe a value nested deeper than the stack by its kind, without serialising it', () => {
    const deep = nested(200_000);
    const result = FanoutRequest.safeParse({ prompt: 'p', cwd: '/r', agent: deep, items: ['a'], batch: 1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues.find((issue) => issue.path[0] === 'agent')?.message).toMatch(
      /^an agent is named by a string, not an? object$/,
    );
    expect(AttemptAgent.safeParse([1]).error?.issues[0]?.message).toMatch(/not a list$/);
    expect(AttemptAgent.safeParse(null).error?.issues[0]?.message).toMatch(/not null$/);
  });
});
