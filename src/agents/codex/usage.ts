/**
 * Codex usage, reported as early as codex tells it. `thread/tokenUsage/updated` carries the
 * thread's totals, but codex sends it only once the tools a response asked for are done — a
 * budget crossed by that response would be seen only after a long command finished. So each
 * response's own usage (`rawResponse/completed`, asked for with `experimentalRawEvents`) is
 * reported as soon as the response completes, and the totals add only what those reports did not
 * cover (a resumed thread, which cannot ask for raw events, is counted by its totals alone).
 *
 * Each early report is matched to the totals that cover it: same turn, and the totals' `last`
 * (the latest response's usage) equal to it. A response whose totals never come (its turn was
 * interrupted while its tool ran) is dropped when another turn reports, so it cannot absorb the
 * real usage of later turns.
 */
import type { AgentEvent } from '../types.js';
import { usageDelta, type UsageTotal } from './normalize.js';
import type { TokenUsageBreakdown } from './protocol.js';

type UsageEvent = Extract<AgentEvent, { type: 'usage.reported' }>;

/** Tokens as Baton reports them: input without the cached part, which is counted on its own. */
export interface ReportedTokens {
  input: number;
  cached: number;
  output: number;
}

/** One response reported early, not yet seen in the totals. */
export interface EarlyReport {
  turnId: string;
  tokens: ReportedTokens;
}

export interface CodexUsageState {
  /** The thread's totals as last seen. */
  usage: UsageTotal;
  /** Responses reported early whose totals have not come yet, oldest first. */
  unmatched?: EarlyReport[] | undefined;
}

const FIELDS = ['input', 'cached', 'output'] as const;

/** One response's own usage, reported at once. */
export function responseUsage(state: CodexUsageState, turnId: string, usage: TokenUsageBreakdown, model?: string): { event: UsageEvent | undefined; state: CodexUsageState } {
  const tokens = reportedTokens(usage);
  // Another turn's responses whose totals never came (an interrupt while their tool ran) are stale.
  const unmatched = (state.unmatched ?? []).filter((r) => r.turnId === turnId);
  return { event: usageEvent(tokens, model), state: { ...state, unmatched: [...unmatched, { turnId, tokens }] } };
}

/**
 * The thread's totals: what they add beyond the last totals, less the early reports they cover —
 * this turn's, up to the one equal to `last` (all of this turn's when none is, capped by what the
 * totals add).
 */
export function threadUsage(
  state: CodexUsageState,
  update: { turnId?: string | undefined; total: TokenUsageBreakdown; last?: TokenUsageBreakdown | undefined },
  model?: string,
): { event: UsageEvent | undefined; state: CodexUsageState } {
  const { event, total: now } = usageDelta(state.usage, update.total, model);
  const unmatched = (state.unmatched ?? []).filter((r) => update.turnId === undefined || r.turnId === update.turnId);
  if (event === undefined) return { event: undefined, state: { usage: now, unmatched } };
  const last = update.last === undefined ? undefined : reportedTokens(update.last);
  const matched = last === undefined ? -1 : unmatched.findIndex((r) => FIELDS.every((f) => r.tokens[f] === last[f]));
  const candidates = matched === -1 ? unmatched : unmatched.slice(0, matched + 1);
  const left = { input: event.inputTokens, cached: event.cacheReadTokens ?? 0, output: event.outputTokens };
  // Oldest first, each field taken from the reports only as far as the totals add to it.
  const remaining = candidates.flatMap((report): EarlyReport[] => {
    const rest = { ...report.tokens };
    for (const f of FIELDS) {
      const take = Math.min(left[f], rest[f]);
      left[f] -= take;
      rest[f] -= take;
    }
    // A matched report is covered whole: what the totals did not add to it was never real.
    return matched === -1 && FIELDS.some((f) => rest[f] > 0) ? [{ ...report, tokens: rest }] : [];
  });
  return { event: usageEvent(left, model), state: { usage: now, unmatched: [...remaining, ...unmatched.slice(candidates.length)] } };
}

function reportedTokens(usage: TokenUsageBreakdown): ReportedTokens {
  const cached = Math.max(0, usage.cachedInputTokens);
  return { input: Math.max(0, usage.inputTokens - cached), cached, output: Math.max(0, usage.outputTokens) };
}

function usageEvent(tokens: ReportedTokens, model: string | undefined): UsageEvent | undefined {
  if (tokens.input === 0 && tokens.cached === 0 && tokens.output === 0) return undefined;
  return {
    type: 'usage.reported',
    inputTokens: tokens.input,
    outputTokens: tokens.output,
    ...(tokens.cached === 0 ? {} : { cacheReadTokens: tokens.cached }),
    ...(model === undefined ? {} : { model }),
  };
}
