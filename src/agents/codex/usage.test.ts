import { describe, expect, it } from 'vitest';
import type { TokenUsageBreakdown } from './protocol.js';
import { responseUsage, threadUsage, type CodexUsageState } from './usage.js';

const fresh: CodexUsageState = { usage: { input: 0, cached: 0, output: 0 } };
const tokens = (inputTokens: number, outputTokens: number, cachedInputTokens = 0) => ({
  inputTokens,
  cachedInputTokens,
  outputTokens,
});

/** The notifications of one thread, in order, and what Baton reported from them. */
function replay(
  steps: ({ raw: TokenUsageBreakdown } | { total: TokenUsageBreakdown; last?: TokenUsageBreakdown })[],
  from = fresh,
): { reported: unknown[]; state: CodexUsageState } {
  let state = from;
  const reported: unknown[] = [];
  for (const step of steps) {
    const next = 'raw' in step ? responseUsage(state, step.raw) : threadUsage(state, step);
    state = next.state;
    if (next.event !== undefined) reported.push(next.event);
  }
  return { reported, state };
}

describe('Codex usage as early as codex tells it', () => {
  it("reports a response's own usage at once, and the thread totals that follow add nothing new", () => {
    const one = responseUsage(fresh, tokens(110_000, 100, 10_000), 'gpt-5.5');
    expect(one.event).toEqual({
      type: 'usage.reported',
      inputTokens: 100_000,
      outputTokens: 100,
      cacheReadTokens: 10_000,
      model: 'gpt-5.5',
    });
    const total = threadUsage(
      one.state,
      { total: tokens(110_000, 100, 10_000), last: tokens(110_000, 100, 10_000) },
      'gpt-5.5',
    );
    expect(total.event).toBeUndefined();
    expect(total.state).toEqual({ usage: { input: 110_000, cached: 10_000, output: 100 }, unmatched: [] });
  });

  it('counts two responses whose totals come late (after a long tool) once each', () => {
    const { reported, state } = replay([
      { raw: tokens(1000, 10) },
      { raw: tokens(1200, 20) },
      { total: tokens(1000, 10), last: tokens(1000, 10) },
      { total: tokens(2200, 30), last: tokens(1200, 20) },
    ]);
    expect(reported).toEqual([
      { type: 'usage.reported', inputTokens: 1000, outputTokens: 10 },
      { type: 'usage.reported', inputTokens: 1200, outputTokens: 20 },
    ]);
    expect(state.unmatched).toEqual([]);
  });

  it('reports from the totals what no single response did (a resumed thread has no raw events)', () => {
    expect(
      replay([{ raw: tokens(1000, 10) }, { total: tokens(1500, 40), last: tokens(500, 30) }]).reported,
    ).toEqual([
      { type: 'usage.reported', inputTokens: 1000, outputTokens: 10 },
      { type: 'usage.reported', inputTokens: 500, outputTokens: 30 },
    ]);
    expect(threadUsage(fresh, { total: tokens(300, 3) }).event).toEqual({
      type: 'usage.reported',
      inputTokens: 300,
      outputTokens: 3,
    });
  });

  it('a response whose totals never came (its turn interrupted while its tool ran) does not hide the real usage of a later resumed thread', () => {
    const before = replay([
      // Turn 1 crosses the budget; the interrupt lands while the response's tool runs, and codex never counts it.
      { raw: tokens(110_000, 100) },
      // Turn 2: the totals cover its response (their `last`), and not turn 1's.
      { raw: tokens(5_000, 50) },
      { total: tokens(5_000, 50), last: tokens(5_000, 50) },
    ]);
    // The thread is resumed in a new process (no raw events): its totals alone tell its usage.
    const after = replay([{ total: tokens(9_000, 90), last: tokens(4_000, 40) }], before.state);
    expect([...before.reported, ...after.reported]).toEqual([
      { type: 'usage.reported', inputTokens: 110_000, outputTokens: 100 },
      { type: 'usage.reported', inputTokens: 5_000, outputTokens: 50 },
      { type: 'usage.reported', inputTokens: 4_000, outputTokens: 40 },
    ]);
  });

  it("counts once a response reported before a stop, which the resumed thread's totals count again", () => {
    const stopped = replay([{ raw: tokens(20_000, 100) }]);
    const resumed = replay([{ total: tokens(20_100, 120), last: tokens(100, 20) }], stopped.state);
    expect([...stopped.reported, ...resumed.reported]).toEqual([
      { type: 'usage.reported', inputTokens: 20_000, outputTokens: 100 },
      { type: 'usage.reported', inputTokens: 100, outputTokens: 20 },
    ]);
    expect(resumed.state.unmatched).toEqual([]);
  });

  it("matches the totals to the response they cover, so a later response's report waits for its own totals", () => {
    const { reported, state } = replay([
      { raw: tokens(1000, 10) },
      // Codex's totals after the first response also counted a response it made without a raw event.
      { total: tokens(1300, 15), last: tokens(1000, 10) },
      { raw: tokens(2000, 20) },
    ]);
    expect(reported).toEqual([
      { type: 'usage.reported', inputTokens: 1000, outputTokens: 10 },
      { type: 'usage.reported', inputTokens: 300, outputTokens: 5 },
      { type: 'usage.reported', inputTokens: 2000, outputTokens: 20 },
    ]);
    expect(state.unmatched).toEqual([{ input: 2000, cached: 0, output: 20 }]);
  });
});
