import { describe, expect, it } from 'vitest';
import { priceOf, priceUsage } from './price.js';
import { PRICE_TABLE } from './prices.js';

describe('pricing usage', () => {
  it('keeps the cost the agent reported', () => {
    expect(priceUsage({ inputTokens: 10, outputTokens: 10, costUsd: 0.42 }, 'gpt-5.5')).toEqual({
      usd: 0.42,
      source: 'agent',
    });
  });

  it('prices a Codex report from the table by its model', () => {
    // 1M input at $1.25, 100k output at $10/M, 200k cached at $0.125/M.
    const priced = priceUsage(
      { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 200_000 },
      'gpt-5.5',
    );
    expect(priced).toEqual({ usd: 1.25 + 1 + 0.025, source: 'table' });
  });

  it('finds a dated slug under its model', () => {
    expect(priceOf('claude-sonnet-4-5-20250929')).toBe(PRICE_TABLE.models['claude-sonnet-4-5']);
    expect(priceOf('GPT-5.5-2026-01-15')).toBe(PRICE_TABLE.models['gpt-5.5']);
  });

  it('prices the Claude models the bundled Claude Code picks by default', () => {
    // One million tokens each way on Opus 4.8 is $5 in and $25 out.
    expect(priceUsage({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, 'claude-opus-4-8')).toEqual({
      usd: 30,
      source: 'table',
    });
    for (const model of ['claude-opus-4-6', 'claude-opus-4-7', 'claude-sonnet-4-6'])
      expect(priceOf(model), model).toBeDefined();
  });

  it('never prices an unknown model at $0: the cost is unknown', () => {
    expect(priceUsage({ inputTokens: 5000, outputTokens: 100 }, 'llama-9')).toEqual({
      usd: null,
      source: 'unknown',
    });
    expect(priceUsage({ inputTokens: 5000, outputTokens: 100 }, undefined)).toEqual({
      usd: null,
      source: 'unknown',
    });
  });

  it('carries the date its prices were taken', () => {
    expect(PRICE_TABLE.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
