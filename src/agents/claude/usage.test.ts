import type { ModelUsage, SDKAssistantMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { ClaudeUsage, usageDeltas } from './usage.js';

/** One content block of a streamed response, as the CLI sends it: the usage is the one `message_start` gave. */
function block(id: string, model: string, input: number, extra: Record<string, number> = {}): SDKAssistantMessage {
  const usage = { input_tokens: input, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...extra };
  return { type: 'assistant', message: { id, model, role: 'assistant', content: [], usage }, parent_tool_use_id: null } as unknown as SDKAssistantMessage;
}

function totals(model: string, input: number, output: number, costUSD: number): Record<string, ModelUsage> {
  return { [model]: { inputTokens: input, outputTokens: output, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD } as ModelUsage };
}

describe('Claude usage during a turn', () => {
  it("reports each response's input as its first block arrives, once per response, priced by the table", () => {
    const usage = new ClaudeUsage();
    expect(usage.responseStarted(block('msg_1', 'claude-sonnet-4-5', 50_000, { cache_read_input_tokens: 1000, cache_creation_input_tokens: 200 }))).toEqual({
      type: 'usage.reported',
      inputTokens: 50_200,
      outputTokens: 1,
      cacheReadTokens: 1000,
      model: 'claude-sonnet-4-5',
    });
    // The response's next block (a tool call after its text) carries the same usage again.
    expect(usage.responseStarted(block('msg_1', 'claude-sonnet-4-5', 50_000))).toBeUndefined();
    expect(usage.responseStarted(block('msg_2', 'claude-sonnet-4-5', 60_000))).toMatchObject({ inputTokens: 60_000 });
  });

  it("adds at the turn's end only what the reports left out: the output and claude's own price beyond the table's", () => {
    const usage = new ClaudeUsage();
    usage.responseStarted(block('msg_1', 'claude-sonnet-4-5', 50_000));
    usage.responseStarted(block('msg_2', 'claude-sonnet-4-5', 50_000));
    // The table prices the two reports at $0.30003; claude says the turn cost $0.303.
    const end = usage.turnEnded({}, totals('claude-sonnet-4-5', 100_000, 200, 0.303));
    expect(end.events).toEqual([{ type: 'usage.reported', inputTokens: 0, outputTokens: 198, costUsd: 0.00297, model: 'claude-sonnet-4-5' }]);
    expect(end.totals).toEqual({ 'claude-sonnet-4-5': { input: 100_000, output: 200, cacheRead: 0, costUsd: 0.303 } });
    // The next turn starts afresh: its first response is reported again, and the totals are differences.
    usage.responseStarted(block('msg_3', 'claude-sonnet-4-5', 10_000));
    expect(usage.turnEnded(end.totals, totals('claude-sonnet-4-5', 110_000, 220, 0.3333)).events).toEqual([
      { type: 'usage.reported', inputTokens: 0, outputTokens: 19, costUsd: 0.000285, model: 'claude-sonnet-4-5' },
    ]);
  });

  it('passes over a synthetic reply without usage (the CLI writes one after an API error)', () => {
    const synthetic = { type: 'assistant', message: { model: '<synthetic>', role: 'assistant', content: [] }, parent_tool_use_id: null } as unknown as SDKAssistantMessage;
    expect(new ClaudeUsage().responseStarted(synthetic)).toBeUndefined();
  });

  it("leaves a model the price table does not know to the turn's end, where claude prices it", () => {
    const usage = new ClaudeUsage();
    expect(usage.responseStarted(block('msg_1', 'claude-mystery-9', 5000))).toBeUndefined();
    expect(usage.turnEnded({}, totals('claude-mystery-9', 5000, 300, 0.0268)).events).toEqual([
      { type: 'usage.reported', inputTokens: 5000, outputTokens: 300, costUsd: 0.0268, model: 'claude-mystery-9' },
    ]);
  });

  it('counts a resumed conversation from the totals its transcript saved, and afresh when they went down', () => {
    const first = usageDeltas({}, totals('claude-sonnet-4-5', 100, 20, 0.01));
    expect(first.events).toEqual([{ type: 'usage.reported', inputTokens: 100, outputTokens: 20, costUsd: 0.01, model: 'claude-sonnet-4-5' }]);
    expect(usageDeltas(first.totals, totals('claude-sonnet-4-5', 40, 5, 0.002)).events).toEqual([
      { type: 'usage.reported', inputTokens: 40, outputTokens: 5, costUsd: 0.002, model: 'claude-sonnet-4-5' },
    ]);
  });
});
