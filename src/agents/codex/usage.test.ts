import { describe, expect, it } from 'vitest';
import { responseUsage, threadUsage, type CodexUsageState } from './usage.js';

const fresh: CodexUsageState = { usage: { input: 0, cached: 0, output: 0 } };
const tokens = (inputTokens: number, outputTokens: number, cachedInputTokens = 0) => ({ inputTokens, cachedInputTokens, outputTokens });

describe('Codex usage as early as codex tells it', () => {
  it("reports a response's own usage at once, and the thread totals that follow add nothing new", () => {
    const one = responseUsage(fresh, tokens(110_000, 100, 10_000), 'gpt-5.5');
    expect(one.event).toEqual({ type: 'usage.reported', inputTokens: 100_000, outputTokens: 100, cacheReadTokens: 10_000, model: 'gpt-5.5' });
    const total = threadUsage(one.state, tokens(110_000, 100, 10_000), 'gpt-5.5');
    expect(total.event).toBeUndefined();
    expect(total.state).toEqual({ usage: { input: 110_000, cached: 10_000, output: 100 }, early: { input: 0, cached: 0, output: 0 } });
  });

  it('counts two responses whose totals come late (after a long tool) once each', () => {
    let state = fresh;
    const reported: unknown[] = [];
    for (const step of [
      () => responseUsage(state, tokens(1000, 10)),
      () => responseUsage(state, tokens(1200, 20)),
      () => threadUsage(state, tokens(1000, 10)),
      () => threadUsage(state, tokens(2200, 30)),
    ]) {
      const next = step();
      state = next.state;
      if (next.event !== undefined) reported.push(next.event);
    }
    expect(reported).toEqual([
      { type: 'usage.reported', inputTokens: 1000, outputTokens: 10 },
      { type: 'usage.reported', inputTokens: 1200, outputTokens: 20 },
    ]);
  });

  it('reports from the totals what no single response did (a resumed thread has no raw events)', () => {
    const one = responseUsage(fresh, tokens(1000, 10));
    const total = threadUsage(one.state, tokens(1500, 40));
    expect(total.event).toEqual({ type: 'usage.reported', inputTokens: 500, outputTokens: 30 });
    expect(threadUsage(fresh, tokens(300, 3)).event).toEqual({ type: 'usage.reported', inputTokens: 300, outputTokens: 3 });
  });
});
