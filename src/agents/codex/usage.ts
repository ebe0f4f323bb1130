/**
 * Codex usage, reported as early as codex tells it. `thread/tokenUsage/updated` carries the
 * thread's totals, but codex sends it only once the tools a response asked for are done — a
 * budget crossed by that response would be seen only after a long command finished. So each
 * response's own usage (`rawResponse/completed`, asked for with `experimentalRawEvents`) is
 * reported as soon as the response completes, and the totals add only what those reports did not
 * cover (a resumed thread, which cannot ask for raw events, is counted by its totals alone).
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
  /** Reported from single responses and not yet seen in the totals. */
  early?: ReportedTokens | undefined;
}

const NONE: ReportedTokens = { input: 0, cached: 0, output: 0 };

/** One response's own usage, reported at once. */
export function responseUsage(state: CodexUsageState, usage: TokenUsageBreakdown, model?: string): { event: UsageEvent | undefined; state: CodexUsageState } {
  const cached = Math.max(0, usage.cachedInputTokens);
  const tokens = { input: Math.max(0, usage.inputTokens - cached), cached, output: Math.max(0, usage.outputTokens) };
  const early = state.early ?? NONE;
  return {
    event: usageEvent(tokens, model),
    state: { ...state, early: { input: early.input + tokens.input, cached: early.cached + tokens.cached, output: early.output + tokens.output } },
  };
}

/** The thread's totals: what they add beyond the last totals, less what single responses already reported. */
export function threadUsage(state: CodexUsageState, total: TokenUsageBreakdown, model?: string): { event: UsageEvent | undefined; state: CodexUsageState } {
  const { event, total: now } = usageDelta(state.usage, total, model);
  if (event === undefined) return { event: undefined, state: { ...state, usage: now } };
  const added = { input: event.inputTokens, cached: event.cacheReadTokens ?? 0, output: event.outputTokens };
  const early = state.early ?? NONE;
  const covered = { input: Math.min(added.input, early.input), cached: Math.min(added.cached, early.cached), output: Math.min(added.output, early.output) };
  const rest = { input: added.input - covered.input, cached: added.cached - covered.cached, output: added.output - covered.output };
  return {
    event: usageEvent(rest, model),
    state: { usage: now, early: { input: early.input - covered.input, cached: early.cached - covered.cached, output: early.output - covered.output } },
  };
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
