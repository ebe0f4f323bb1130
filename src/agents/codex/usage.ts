/**
 * Codex usage, reported as early as codex tells it. `thread/tokenUsage/updated` carries the
 * thread's totals, but codex sends it only once the tools a response asked for are done — a
 * budget crossed by that response would be seen only after a long command finished. So each
 * response's own usage (`rawResponse/completed`, asked for with `experimentalRawEvents`) is
 * reported as soon as the response completes, and the totals add only what those reports did not
 * cover (a resumed thread, which cannot ask for raw events, is counted by its totals alone).
 *
 * Each early report is matched to the totals that cover it: their `last` (the latest response's
 * own usage) equals it. Totals matched to a response cover every earlier report too, so a report
 * the totals never took in (its turn was interrupted while its tool ran) is dropped there and
 * cannot absorb the real usage of later turns. Totals that match no report (a resumed thread has
 * no raw events) cover what is left, as far as they add: codex's totals after a resume do count
 * a response reported before a stop.
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

export interface CodexUsageState {
  /** The thread's totals as last seen. */
  usage: UsageTotal;
  /** Responses reported early whose totals have not come yet, oldest first. */
  unmatched?: ReportedTokens[] | undefined;
}

const FIELDS = ['input', 'cached', 'output'] as const;

/** One response's own usage, reported at once. */
export function responseUsage(
  state: CodexUsageState,
  usage: TokenUsageBreakdown,
  model?: string,
): { event: UsageEvent | undefined; state: CodexUsageState } {
  const tokens = reportedTokens(usage);
  return {
    event: usageEvent(tokens, model),
    state: { ...state, unmatched: [...(state.unmatched ?? []), tokens] },
  };
}

/**
 * The thread's totals: what they add beyond the last totals, less the early reports they cover —
 * up to the one equal to `last`, or all of them when none is, never more than the totals add.
 */
export function threadUsage(
  state: CodexUsageState,
  update: { total: TokenUsageBreakdown; last?: TokenUsageBreakdown | undefined },
  model?: string,
): { event: UsageEvent | undefined; state: CodexUsageState } {
  const { event, total: now } = usageDelta(state.usage, update.total, model);
  const unmatched = state.unmatched ?? [];
  if (event === undefined) return { event: undefined, state: { usage: now, unmatched } };
  const last = update.last === undefined ? undefined : reportedTokens(update.last);
  const matched = last === undefined ? -1 : unmatched.findIndex((r) => FIELDS.every((f) => r[f] === last[f]));
  const candidates = matched === -1 ? unmatched : unmatched.slice(0, matched + 1);
  const left = { input: event.inputTokens, cached: event.cacheReadTokens ?? 0, output: event.outputTokens };
  // Oldest first, each field taken from the reports only as far as the totals add to it.
  const remaining = candidates.flatMap((report): ReportedTokens[] => {
    const rest = { ...report };
    for (const f of FIELDS) {
      const take = Math.min(left[f], rest[f]);
      left[f] -= take;
      rest[f] -= take;
    }
    // Reports up to a matched one are covered whole: what the totals did not add to them, codex never counted.
    return matched === -1 && FIELDS.some((f) => rest[f] > 0) ? [rest] : [];
  });
  return {
    event: usageEvent(left, model),
    state: { usage: now, unmatched: [...remaining, ...unmatched.slice(candidates.length)] },
  };
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
