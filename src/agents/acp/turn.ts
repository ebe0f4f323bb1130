/**
 * How an ACP turn ends, in Baton's terms: the `stopReason` of `session/prompt`'s answer decides
 * the outcome, and the answer's usage (ACP's `usage`, or Gemini CLI's `_meta.quota`) is the
 * turn's tokens. A running cost the agent reports (`usage_update`) is turned into the turn's
 * share of it.
 */
import type { AgentEvent } from '../types.js';

type UsageEvent = Extract<AgentEvent, { type: 'usage.reported' }>;
type Outcome = Extract<AgentEvent, { type: 'turn.completed' }>;

export interface AcpUsageState {
  /** The running cost the agent reported, as of the last turn's end (USD). */
  costUsd: number;
}

const STOPS: Record<string, string> = {
  max_tokens: 'the model reached its output limit',
  max_turn_requests: 'the turn reached its limit of model requests',
  refusal: 'the model refused to go on',
};

/**
 * `end_turn` is success; `cancelled` — or any stop after the user asked to stop — is an
 * interruption; the other reasons are the turn failing, with the reason said (decision 242).
 */
export function stopOutcome(stopReason: string, interruptRequested: boolean, agent: string): Outcome {
  if (stopReason === 'cancelled' || interruptRequested)
    return { type: 'turn.completed', outcome: 'interrupted' };
  if (stopReason === 'end_turn') return { type: 'turn.completed', outcome: 'success' };
  return {
    type: 'turn.completed',
    outcome: 'error',
    error: `${agent} stopped: ${STOPS[stopReason] ?? stopReason}`,
  };
}

interface Tokens {
  input: number;
  output: number;
  cached: number;
  model: string | undefined;
}

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;

/** The turn's tokens from a `session/prompt` answer, wherever the agent put them. */
export function tokensOf(
  response: { usage?: unknown; _meta?: unknown },
  model: string | undefined,
): Tokens | undefined {
  const usage = response.usage as Record<string, unknown> | null | undefined;
  if (usage !== null && usage !== undefined && typeof usage === 'object') {
    const cached = count(usage.cachedReadTokens);
    return {
      // Baton counts cached input on its own, beside the rest.
      input: Math.max(0, count(usage.inputTokens) - cached),
      output: count(usage.outputTokens) + count(usage.thoughtTokens),
      cached,
      model,
    };
  }
  // Gemini CLI: `_meta.quota.token_count`, and the model of each request in `model_usage`.
  const quota = (response._meta as { quota?: Record<string, unknown> } | null | undefined)?.quota;
  const tokens = quota?.token_count as Record<string, unknown> | undefined;
  if (tokens === undefined) return undefined;
  const models = (quota?.model_usage as { model?: unknown }[] | undefined) ?? [];
  const named = models.find((m) => typeof m.model === 'string')?.model as string | undefined;
  return {
    input: count(tokens.input_tokens),
    output: count(tokens.output_tokens),
    cached: 0,
    model: named ?? model,
  };
}

export function turnUsage(
  response: { usage?: unknown; _meta?: unknown },
  model: string | undefined,
  state: AcpUsageState,
  costSeen: number | undefined,
): { event: UsageEvent | undefined; state: Partial<AcpUsageState> } {
  const tokens = tokensOf(response, model);
  const cost = costSeen === undefined ? undefined : Math.max(0, costSeen - state.costUsd);
  const change = costSeen === undefined ? {} : { costUsd: costSeen };
  if (tokens === undefined || (tokens.input === 0 && tokens.output === 0 && tokens.cached === 0))
    return { event: undefined, state: change };
  return {
    event: {
      type: 'usage.reported',
      inputTokens: tokens.input,
      outputTokens: tokens.output,
      ...(tokens.cached === 0 ? {} : { cacheReadTokens: tokens.cached }),
      ...(cost === undefined ? {} : { costUsd: cost }),
      ...(tokens.model === undefined ? {} : { model: tokens.model }),
    },
    state: change,
  };
}
