import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../events/index.js';
import { searchResults, transcript } from './format.js';

const event = (seq: number, fields: Record<string, unknown>): BatonEvent =>
  ({ seq, ts: '2026-01-01T00:00:00.000Z', sessionId: 's1', ...fields }) as unknown as BatonEvent;

describe("the MCP tools' words for an agent", () => {
  it('tells a transcript line by line, numbered, naming who spoke, and leaves the bookkeeping out', () => {
    const text = transcript([
      event(1, { type: 'message.added', role: 'user', text: 'fix the build' }),
      event(2, { type: 'usage.reported', inputTokens: 10, outputTokens: 2 }),
      event(3, { type: 'tool.started', tool: 'Bash', input: 'npm   test\n  --silent' }),
      event(4, { type: 'tool.finished', tool: 'Bash', ok: false }),
      event(5, { type: 'message.added', role: 'user', text: 'hi', from: { name: 'beta' } }),
      event(6, { type: 'state.changed', from: 'running', to: 'needs_input' }),
    ]);
    expect(text.split('\n')).toEqual([
      '#1 user: fix the build',
      '#3 tool Bash: npm test --silent',
      '#4 tool Bash failed',
      '#5 message from beta: hi',
      '#6 state: needs input',
    ]);
    expect(transcript([event(1, { type: 'usage.reported' })])).toBe('No messages yet.');
  });

  it('cuts a long message to one line of 600 characters, ending in an ellipsis', () => {
    const line = transcript([
      event(7, { type: 'message.added', role: 'assistant', text: 'x\n'.repeat(1000) }),
    ]);
    expect(line.startsWith('#7 agent: x x')).toBe(true);
    expect(line).not.toContain('\n');
    expect(line.length).toBe('#7 agent: '.length + 600);
    expect(line.endsWith('…')).toBe(true);
  });

  it('says a search found nothing, naming the query, and lists hits with their place and minute', () => {
    expect(searchResults({ query: 'flaky', hits: [] })).toBe('Nothing found for "flaky".');
    expect(
      searchResults({
        query: 'flaky',
        hits: [
          {
            name: 'alpha',
            seq: 12,
            type: 'message.added',
            ts: '2026-03-04T05:06:07.000Z',
            snippet: 'a flaky test',
          },
        ],
      } as never),
    ).toBe('- alpha #12 (message.added, 2026-03-04 05:06): a flaky test');
  });
});
