/**
 * Usage as deltas. Claude's results carry running totals per model (`modelUsage`) for the whole
 * conversation — a resumed one starts from the totals its transcript saved — so we keep the last
 * totals we reported in the session's state folder and report only what is new.
 */
import type { ModelUsage } from '@anthropic-ai/claude-agent-sdk';
import type { AgentEvent } from '../types.js';

export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  costUsd: number;
}

export type TotalsByModel = Record<string, UsageTotals>;

export function usageDeltas(previous: TotalsByModel, current: Record<string, ModelUsage>): { events: AgentEvent[]; totals: TotalsByModel } {
  const totals: TotalsByModel = { ...previous };
  const events: AgentEvent[] = [];
  for (const [model, usage] of Object.entries(current)) {
    const now: UsageTotals = {
      input: usage.inputTokens + usage.cacheCreationInputTokens,
      output: usage.outputTokens,
      cacheRead: usage.cacheReadInputTokens,
      costUsd: usage.costUSD,
    };
    const before = previous[model];
    // Totals that went down mean the CLI started counting afresh (a transcript without saved totals).
    const base = before === undefined || now.input < before.input || now.output < before.output ? zero() : before;
    totals[model] = now;
    const delta = {
      input: now.input - base.input,
      output: now.output - base.output,
      cacheRead: Math.max(0, now.cacheRead - base.cacheRead),
      costUsd: Math.max(0, now.costUsd - base.costUsd),
    };
    if (delta.input === 0 && delta.output === 0 && delta.cacheRead === 0) continue;
    events.push({
      type: 'usage.reported',
      inputTokens: delta.input,
      outputTokens: delta.output,
      ...(delta.cacheRead === 0 ? {} : { cacheReadTokens: delta.cacheRead }),
      costUsd: roundCost(delta.costUsd),
      model,
    });
  }
  return { events, totals };
}

function zero(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, costUsd: 0 };
}

/** Differences of float totals leave noise in the last digits. */
function roundCost(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
