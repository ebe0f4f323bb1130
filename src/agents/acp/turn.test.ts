import { describe, expect, it } from 'vitest';
import { stopOutcome, turnUsage } from './turn.js';

/**
 * The state a turn's end leads to is a judgment (decision 242): each stop reason must land on its
 * outcome, and a stop the user asked for must never read as a failure.
 */
const CORPUS: [string, boolean, string][] = [
  ['end_turn', false, 'success'],
  ['cancelled', false, 'interrupted'],
  ['cancelled', true, 'interrupted'],
  ['end_turn', true, 'interrupted'],
  ['max_tokens', true, 'interrupted'],
  ['max_tokens', false, 'error'],
  ['max_turn_requests', false, 'error'],
  ['refusal', false, 'error'],
  ['something_new', false, 'error'],
];

describe('how an ACP turn ends', () => {
  it.each(CORPUS)('stopReason %s (stop asked: %s) is %s', (reason, asked, outcome) => {
    expect(stopOutcome(reason, asked, 'Agent').outcome).toBe(outcome);
  });

  it('says why a turn failed', () => {
    expect(stopOutcome('max_tokens', false, 'Gemini CLI').error).toBe(
      'Gemini CLI stopped: the model reached its output limit',
    );
  });

  it("reads ACP's usage, counting cached input on its own", () => {
    const { event } = turnUsage(
      {
        usage: {
          inputTokens: 100,
          outputTokens: 20,
          cachedReadTokens: 30,
          thoughtTokens: 5,
          totalTokens: 125,
        },
      },
      'fake/model',
      { costUsd: 0 },
      undefined,
    );
    expect(event).toEqual({
      type: 'usage.reported',
      inputTokens: 70,
      outputTokens: 25,
      cacheReadTokens: 30,
      model: 'fake/model',
    });
  });

  it("reads Gemini CLI's quota, naming the model it used", () => {
    const { event } = turnUsage(
      {
        _meta: {
          quota: {
            token_count: { input_tokens: 20, output_tokens: 10 },
            model_usage: [{ model: 'gemini-2.5-pro', token_count: { input_tokens: 20, output_tokens: 10 } }],
          },
        },
      },
      'auto',
      { costUsd: 0 },
      undefined,
    );
    expect(event).toEqual({
      type: 'usage.reported',
      inputTokens: 20,
      outputTokens: 10,
      model: 'gemini-2.5-pro',
    });
  });

  it('turns a running cost into the turn’s share of it', () => {
    const usage = { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } };
    const first = turnUsage(usage, undefined, { costUsd: 0 }, 0.5);
    expect(first.event?.costUsd).toBe(0.5);
    const second = turnUsage(usage, undefined, { costUsd: 0.5 }, 0.75);
    expect(second.event?.costUsd).toBe(0.25);
    expect(second.state).toEqual({ costUsd: 0.75 });
  });

  it('reports nothing for a turn without usage', () => {
    expect(turnUsage({}, undefined, { costUsd: 0 }, undefined).event).toBeUndefined();
  });
});
