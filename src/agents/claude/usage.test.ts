import type { ModelUsage, SDKAssistantMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { ClaudeUsage, sameModel, usageDeltas, type ClaudeUsageState } from './usage.js';

/** One content block of a streamed response, as the CLI sends it: the usage is the one `message_start` gave. */
function block(
  id: string,
  model: string,
  input: number,
  extra: Record<string, number> = {},
): SDKAssistantMessage {
  const usage = {
    input_tokens: input,
    output_tokens: 1,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    ...extra,
  };
  return {
    type: 'assistant',
    message: { id, model, role: 'assistant', content: [], usage },
    parent_tool_use_id: null,
  } as unknown as SDKAssistantMessage;
}

function totals(model: string, input: number, output: number, costUSD: number): Record<string, ModelUsage> {
  return {
    [model]: {
      inputTokens: input,
      outputTokens: output,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      costUSD,
    } as ModelUsage,
  };
}

describe('Claude usage during a turn', () => {
  it("reports each response's input as its first block arrives, once per response, priced by the table", () => {
    const usage = new ClaudeUsage();
    expect(
      usage.responseStarted(
        block('msg_1', 'claude-sonnet-4-5', 50_000, {
          cache_read_input_tokens: 1000,
          cache_creation_input_tokens: 200,
        }),
      )?.event,
    ).toEqual({
      type: 'usage.reported',
      inputTokens: 50_200,
      outputTokens: 1,
      cacheReadTokens: 1000,
      model: 'claude-sonnet-4-5',
    });
    // The response's next block (a tool call after its text) carries the same usage again.
    expect(usage.responseStarted(block('msg_1', 'claude-sonnet-4-5', 50_000))).toBeUndefined();
    expect(usage.responseStarted(block('msg_2', 'claude-sonnet-4-5', 60_000))?.event).toMatchObject({
      inputTokens: 60_000,
    });
  });

  it("adds at the turn's end only what the reports left out: the output and claude's own price beyond the table's", () => {
    const host = new Host();
    host.started(block('msg_1', 'claude-sonnet-4-5', 50_000));
    host.started(block('msg_2', 'claude-sonnet-4-5', 50_000));
    // The table prices the two reports at $0.30003; claude says the turn cost $0.303.
    expect(host.result(totals('claude-sonnet-4-5', 100_000, 200, 0.303))).toEqual([
      {
        type: 'usage.reported',
        inputTokens: 0,
        outputTokens: 198,
        costUsd: 0.00297,
        model: 'claude-sonnet-4-5',
      },
    ]);
    expect(host.state).toEqual({
      usage: { 'claude-sonnet-4-5': { input: 100_000, output: 200, cacheRead: 0, costUsd: 0.303 } },
      reported: {},
    });
    // The next turn starts afresh: its first response is reported again, and the totals are differences.
    host.started(block('msg_3', 'claude-sonnet-4-5', 10_000));
    expect(host.result(totals('claude-sonnet-4-5', 110_000, 220, 0.3333))).toEqual([
      {
        type: 'usage.reported',
        inputTokens: 0,
        outputTokens: 19,
        costUsd: 0.000285,
        model: 'claude-sonnet-4-5',
      },
    ]);
  });

  it('never counts twice the responses of a turn stopped before its result, when a new process resumes the conversation', () => {
    const first = new Host();
    expect(first.started(block('msg_1', 'claude-sonnet-4-5', 50_000))).toMatchObject({ inputTokens: 50_000 });
    // `baton stop` mid-tool: no result. A reply resumes the conversation in a new process, which
    // starts from the saved state; claude's totals there include the stopped turn's response.
    const second = new Host(first.state);
    expect(second.started(block('msg_2', 'claude-sonnet-4-5', 60_000))).toMatchObject({
      inputTokens: 60_000,
    });
    const rest = second.result(totals('claude-sonnet-4-5', 110_000, 150, 0.3322));
    expect(rest).toEqual([
      {
        type: 'usage.reported',
        inputTokens: 0,
        outputTokens: 148,
        costUsd: 0.00217,
        model: 'claude-sonnet-4-5',
      },
    ]);
    expect(first.reportedInput + second.reportedInput + rest[0]!.inputTokens).toBe(110_000);
  });

  it("subtracts reports whose model id is the result's key without its date, and otherwise from the largest delta, with a side model beside it", () => {
    const dated = new Host();
    dated.started(block('msg_1', 'claude-sonnet-4-5', 50_000));
    const withSideCall = {
      ...totals('claude-sonnet-4-5-20250929', 50_000, 100, 0.1515),
      ...totals('claude-haiku-4-5-20251001', 300, 10, 0.00035),
    };
    expect(dated.result(withSideCall)).toEqual([
      {
        type: 'usage.reported',
        inputTokens: 0,
        outputTokens: 99,
        costUsd: 0.001485,
        model: 'claude-sonnet-4-5-20250929',
      },
      {
        type: 'usage.reported',
        inputTokens: 300,
        outputTokens: 10,
        costUsd: 0.00035,
        model: 'claude-haiku-4-5-20251001',
      },
    ]);
    const alias = new Host();
    alias.started(block('msg_1', 'claude-sonnet-4-5', 50_000));
    const renamed = {
      ...totals('sonnet', 50_000, 100, 0.1515),
      ...totals('claude-haiku-4-5-20251001', 300, 10, 0.00035),
    };
    expect(alias.result(renamed)[0]).toMatchObject({ inputTokens: 0, outputTokens: 99, model: 'sonnet' });
    expect(sameModel('claude-opus-4-1@20250805', 'claude-opus-4-1')).toBe(true);
    expect(sameModel('claude-sonnet-4-5[1m]', 'claude-sonnet-4-5-20250929')).toBe(true);
    expect(sameModel('claude-sonnet-4-5', 'claude-haiku-4-5')).toBe(false);
  });

  it('passes over a synthetic reply without usage (the CLI writes one after an API error)', () => {
    const synthetic = {
      type: 'assistant',
      message: { model: '<synthetic>', role: 'assistant', content: [] },
      parent_tool_use_id: null,
    } as unknown as SDKAssistantMessage;
    expect(new ClaudeUsage().responseStarted(synthetic)).toBeUndefined();
  });

  it("leaves a model the price table does not know to the turn's end, where claude prices it", () => {
    const usage = new ClaudeUsage();
    expect(usage.responseStarted(block('msg_1', 'claude-mystery-9', 5000))).toBeUndefined();
    expect(usage.turnEnded({ usage: {} }, totals('claude-mystery-9', 5000, 300, 0.0268)).events).toEqual([
      {
        type: 'usage.reported',
        inputTokens: 5000,
        outputTokens: 300,
        costUsd: 0.0268,
        model: 'claude-mystery-9',
      },
    ]);
  });

  it('counts a resumed conversation from the totals its transcript saved, and afresh when they went down', () => {
    const first = usageDeltas({}, totals('claude-sonnet-4-5', 100, 20, 0.01));
    expect(first.events).toEqual([
      {
        type: 'usage.reported',
        inputTokens: 100,
        outputTokens: 20,
        costUsd: 0.01,
        model: 'claude-sonnet-4-5',
      },
    ]);
    expect(usageDeltas(first.totals, totals('claude-sonnet-4-5', 40, 5, 0.002)).events).toEqual([
      {
        type: 'usage.reported',
        inputTokens: 40,
        outputTokens: 5,
        costUsd: 0.002,
        model: 'claude-sonnet-4-5',
      },
    ]);
  });
});

/** One claude process as run.ts drives it: reports saved to the session's state as they are sent. */
class Host {
  private readonly usage = new ClaudeUsage();
  reportedInput = 0;

  constructor(public state: ClaudeUsageState = { usage: {} }) {}

  started(message: SDKAssistantMessage): unknown {
    const report = this.usage.responseStarted(message, this.state.reported);
    if (report === undefined) return undefined;
    this.state = { ...this.state, reported: report.reported };
    this.reportedInput += report.event.inputTokens;
    return report.event;
  }

  result(current: Record<string, ModelUsage>): unknown[] & { inputTokens: number }[] {
    const end = this.usage.turnEnded(this.state, current);
    this.state = { usage: end.totals, reported: {} };
    return end.events as unknown[] & { inputTokens: number }[];
  }
}
