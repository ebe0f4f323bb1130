/**
 * Usage as deltas, reported as soon as each API response starts. Claude's results carry running
 * totals per model (`modelUsage`) for the whole conversation — a resumed one starts from the totals
 * its transcript saved — so we keep the last totals we reported in the session's state folder.
 * A result comes only when the turn ends, which is too late for a budget: so the first content
 * block of each response reports that response's input tokens (final at `message_start`) at once,
 * and the result adds only what those reports left out (the output, claude's own price). The
 * reports are saved as they are sent, so a turn stopped before its result is not counted twice.
 */
import type { ModelUsage, SDKAssistantMessage } from '@anthropic-ai/claude-agent-sdk';
import { priceUsage } from '../../usage/index.js';
import type { AgentEvent } from '../types.js';

export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  costUsd: number;
}

export type TotalsByModel = Record<string, UsageTotals>;
type UsageEvent = Extract<AgentEvent, { type: 'usage.reported' }>;

/**
 * The part of the session's state file usage needs: claude's totals as of the last result, and
 * what was reported during turns since then. Both persist, because a turn stopped before its
 * result (`baton stop`, a crash) has already reported its responses, and the result of the next
 * turn — in this process or a resumed one — counts them again in its totals.
 */
export interface ClaudeUsageState {
  usage: TotalsByModel;
  reported?: TotalsByModel | undefined;
}

/** One conversation's usage: the reports sent during the running turn, and the turn-end reckoning. */
export class ClaudeUsage {
  /** Responses already reported (a response arrives as one message per content block). */
  private readonly responses = new Set<string>();

  /**
   * The first block of a response: its input, and the output so far, priced by Baton's table. A
   * model the table does not know is left to the result, which carries claude's own price.
   * Returns the event and the new `reported` totals, to be saved before the event is emitted.
   */
  responseStarted(
    message: SDKAssistantMessage,
    reported: TotalsByModel = {},
  ): { event: UsageEvent; reported: TotalsByModel } | undefined {
    const { id, model, usage } = message.message as Partial<SDKAssistantMessage['message']>;
    // A synthetic reply (the CLI's own, after an API error) may come without an id or usage.
    if (
      id === undefined ||
      model === undefined ||
      usage === undefined ||
      usage === null ||
      this.responses.has(id)
    )
      return undefined;
    this.responses.add(id);
    const report = {
      inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0),
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    };
    const priced = priceUsage(report, model);
    if (priced.usd === null || report.inputTokens + report.outputTokens + report.cacheReadTokens === 0)
      return undefined;
    const sent = reported[model] ?? zero();
    const next = {
      ...reported,
      [model]: {
        input: sent.input + report.inputTokens,
        output: sent.output + report.outputTokens,
        cacheRead: sent.cacheRead + report.cacheReadTokens,
        costUsd: sent.costUsd + priced.usd,
      },
    };
    const event: UsageEvent = {
      type: 'usage.reported',
      inputTokens: report.inputTokens,
      outputTokens: report.outputTokens,
      ...(report.cacheReadTokens === 0 ? {} : { cacheReadTokens: report.cacheReadTokens }),
      model,
    };
    return { event, reported: next };
  }

  /**
   * A result: its usage beyond the saved totals, less what was reported since them (this turn's
   * reports and those of turns stopped before their result). Save `totals` with `reported` emptied.
   */
  turnEnded(
    state: ClaudeUsageState,
    current: Record<string, ModelUsage>,
  ): { events: AgentEvent[]; totals: TotalsByModel } {
    const { events, totals } = usageDeltas(state.usage, current);
    const sent = attribute(events, state.reported ?? {});
    this.responses.clear();
    const rest = events.flatMap((event): UsageEvent[] => {
      const before = sent.get(event) ?? zero();
      const input = Math.max(0, event.inputTokens - before.input);
      const output = Math.max(0, event.outputTokens - before.output);
      const cacheRead = Math.max(0, (event.cacheReadTokens ?? 0) - before.cacheRead);
      const costUsd = roundCost(Math.max(0, (event.costUsd ?? 0) - before.costUsd));
      if (input === 0 && output === 0 && cacheRead === 0 && costUsd === 0) return [];
      return [
        {
          type: 'usage.reported',
          inputTokens: input,
          outputTokens: output,
          ...(cacheRead === 0 ? {} : { cacheReadTokens: cacheRead }),
          costUsd,
          ...(event.model === undefined ? {} : { model: event.model }),
        },
      ];
    });
    return { events: rest, totals };
  }
}

/**
 * Which turn-end delta each model's reports belong to: its own; else the one whose model id is
 * the same once normalized (a response may name `claude-sonnet-4-5` where the result's key is
 * the dated id); else the largest, so that reports are never counted again in full.
 */
function attribute(events: UsageEvent[], reported: TotalsByModel): Map<UsageEvent, UsageTotals> {
  const byEvent = new Map<UsageEvent, UsageTotals>();
  const largest = [...events].sort((a, b) => tokensOf(b) - tokensOf(a))[0];
  for (const [model, sent] of Object.entries(reported)) {
    const event =
      events.find((e) => e.model === model) ??
      events.find((e) => e.model !== undefined && sameModel(e.model, model)) ??
      largest;
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

/** A model id without what names one release of it: a date (`-20250929`, `@20250929`), `-latest`, a context tag (`[1m]`). */
export function sameModel(a: string, b: string): boolean {
  const base = (id: string): string =>
    id
      .toLowerCase()
      .replace(/\[[^\]]*\]$/, '')
      .replace(/[-@]\d{8}$/, '')
      .replace(/-latest$/, '');
  return base(a) === base(b);
}

function tokensOf(event: UsageEvent): number {
  return event.inputTokens + event.outputTokens + (event.cacheReadTokens ?? 0);
}

export function usageDeltas(
  previous: TotalsByModel,
  current: Record<string, ModelUsage>,
): { events: UsageEvent[]; totals: TotalsByModel } {
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
    const base =
      before === undefined || now.input < before.input || now.output < before.output ? zero() : before;
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
