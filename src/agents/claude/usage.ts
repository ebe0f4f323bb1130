/**
 * Usage as deltas, reported as soon as each API response starts. Claude's results carry running
 * totals per model (`modelUsage`) for the whole conversation — a resumed one starts from the totals
 * its transcript saved — so we keep the last totals we reported in the session's state folder.
 * A result comes only when the turn ends, which is too late for a budget: so the first content
 * block of each response reports that response's input tokens (final at `message_start`) at once,
 * and the result adds only what those reports left out (the output, claude's own price).
 */
import type { ModelUsage, SDKAssistantMessage } from '@anthropic-ai/claude-agent-sdk';
import { priceUsage } from '../../usage/price.js';
import type { AgentEvent } from '../types.js';

export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  costUsd: number;
}

export type TotalsByModel = Record<string, UsageTotals>;
type UsageEvent = Extract<AgentEvent, { type: 'usage.reported' }>;

/** One conversation's usage: the reports sent during the running turn, and the turn-end reckoning. */
export class ClaudeUsage {
  /** Responses already reported this turn (a response arrives as one message per content block). */
  private readonly responses = new Set<string>();
  private midTurn: TotalsByModel = {};

  /**
   * The first block of a response: its input, and the output so far, priced by Baton's table. A
   * model the table does not know is left to the result, which carries claude's own price.
   */
  responseStarted(message: SDKAssistantMessage): UsageEvent | undefined {
    const { id, model, usage } = message.message as Partial<SDKAssistantMessage['message']>;
    // A synthetic reply (the CLI's own, after an API error) may come without an id or usage.
    if (id === undefined || model === undefined || usage === undefined || usage === null || this.responses.has(id)) return undefined;
    this.responses.add(id);
    const report = {
      inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0),
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    };
    const priced = priceUsage(report, model);
    if (priced.usd === null || report.inputTokens + report.outputTokens + report.cacheReadTokens === 0) return undefined;
    const sent = (this.midTurn[model] ??= zero());
    sent.input += report.inputTokens;
    sent.output += report.outputTokens;
    sent.cacheRead += report.cacheReadTokens;
    sent.costUsd += priced.usd;
    return { type: 'usage.reported', inputTokens: report.inputTokens, outputTokens: report.outputTokens, ...(report.cacheReadTokens === 0 ? {} : { cacheReadTokens: report.cacheReadTokens }), model };
  }

  /** The turn's result: its usage beyond `previous` totals, less what was reported during the turn. */
  turnEnded(previous: TotalsByModel, current: Record<string, ModelUsage>): { events: AgentEvent[]; totals: TotalsByModel } {
    const { events, totals } = usageDeltas(previous, current);
    const sent = this.attribute(events);
    this.responses.clear();
    this.midTurn = {};
    const rest = events.flatMap((event): UsageEvent[] => {
      const before = sent.get(event) ?? zero();
      const input = Math.max(0, event.inputTokens - before.input);
      const output = Math.max(0, event.outputTokens - before.output);
      const cacheRead = Math.max(0, (event.cacheReadTokens ?? 0) - before.cacheRead);
      const costUsd = roundCost(Math.max(0, (event.costUsd ?? 0) - before.costUsd));
      if (input === 0 && output === 0 && cacheRead === 0 && costUsd === 0) return [];
      return [{ type: 'usage.reported', inputTokens: input, outputTokens: output, ...(cacheRead === 0 ? {} : { cacheReadTokens: cacheRead }), costUsd, ...(event.model === undefined ? {} : { model: event.model }) }];
    });
    return { events: rest, totals };
  }

  /** Which turn-end delta each model's mid-turn reports belong to: its own, or the only one there is. */
  private attribute(events: UsageEvent[]): Map<UsageEvent, UsageTotals> {
    const byEvent = new Map<UsageEvent, UsageTotals>();
    for (const [model, sent] of Object.entries(this.midTurn)) {
      const event = events.find((e) => e.model === model) ?? (events.length === 1 ? events[0] : undefined);
      if (event === undefined) continue;
      const into = byEvent.get(event) ?? zero();
      into.input += sent.input;
      into.output += sent.output;
      into.cacheRead += sent.cacheRead;
      into.costUsd += sent.costUsd;
      byEvent.set(event, into);
    }
    return byEvent;
  }
}

export function usageDeltas(previous: TotalsByModel, current: Record<string, ModelUsage>): { events: UsageEvent[]; totals: TotalsByModel } {
  const totals: TotalsByModel = { ...previous };
  const events: UsageEvent[] = [];
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
