import { describe, expect, it } from 'vitest';
import { AttemptAgent, FanoutRequest } from './attempts.js';

/** An object nested `depth` deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('the attempts schemas', () => {
  it('name an unknown agent, quoted and cut short', () => {
    const result = AttemptAgent.safeParse('aider');
    expect(result.error?.issues[0]?.message).toBe(
      'unknown agent "aider"; the agents are scripted, claude, codex, gemini, opencode, qwen, copilot',
    );
    expect(AttemptAgent.safeParse('x'.repeat(500)).error?.issues[0]?.message).toMatch(
      /^unknown agent "x{60}…";/,
    );
  });

  it('describe a value nested deeper than the stack by its kind, without serialising it', () => {
    const deep = nested(200_000);
    const result = FanoutRequest.safeParse({ prompt: 'p', cwd: '/r', agent: deep, items: ['a'], batch: 1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues.find((issue) => issue.path[0] === 'agent')?.message).toMatch(
      /^unknown agent an? object;/,
    );
    expect(AttemptAgent.safeParse([1]).error?.issues[0]?.message).toMatch(/^unknown agent a list;/);
    expect(AttemptAgent.safeParse(null).error?.issues[0]?.message).toMatch(/^unknown agent null;/);
  });
});
