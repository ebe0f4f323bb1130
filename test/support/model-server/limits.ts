/**
 * Subscription windows and usage-limit errors as the vendors' APIs send them, for scripted steps:
 * the real `claude` reads Anthropic's `anthropic-ratelimit-unified-*` headers (for a claude.ai
 * login) and turns them into `rate_limit_event`s; the real `codex` reads its `x-codex-primary-*` /
 * `x-codex-secondary-*` headers into `account/rateLimits/updated`, and a 429 whose error type is
 * `usage_limit_reached` into a failed turn with `usageLimitExceeded`.
 */
import type { Step } from './scenario.js';

/** One window's state: used fraction (0–1, above 1 past the cap) and its reset, seconds since the epoch. */
export interface WindowState {
  utilization: number;
  resetsAt: number;
}

export interface WindowsState {
  /** The 5-hour window. */
  short: WindowState;
  /** The weekly window. */
  week: WindowState;
}

/** Anthropic's unified rate-limit headers for a claude.ai subscriber. */
export function anthropicWindowHeaders(windows: WindowsState, rejected = false): Record<string, string> {
  const status = (w: WindowState): string => (w.utilization >= 1 ? 'rejected' : 'allowed');
  const claim = windows.short.utilization >= windows.week.utilization ? 'five_hour' : 'seven_day';
  const binding = claim === 'five_hour' ? windows.short : windows.week;
  return {
    'anthropic-ratelimit-unified-status': rejected ? 'rejected' : 'allowed',
    'anthropic-ratelimit-unified-representative-claim': claim,
    'anthropic-ratelimit-unified-reset': String(binding.resetsAt),
    'anthropic-ratelimit-unified-5h-status': status(windows.short),
    'anthropic-ratelimit-unified-5h-utilization': String(windows.short.utilization),
    'anthropic-ratelimit-unified-5h-reset': String(windows.short.resetsAt),
    'anthropic-ratelimit-unified-7d-status': status(windows.week),
    'anthropic-ratelimit-unified-7d-utilization': String(windows.week.utilization),
    'anthropic-ratelimit-unified-7d-reset': String(windows.week.resetsAt),
  };
}

/** Codex's rate-limit headers on a Responses reply: used percent, window length, reset. */
export function codexWindowHeaders(windows: WindowsState): Record<string, string> {
  const pair = (prefix: string, w: WindowState, minutes: number): Record<string, string> => ({
    [`x-codex-${prefix}-used-percent`]: String(Math.round(w.utilization * 1000) / 10),
    [`x-codex-${prefix}-window-minutes`]: String(minutes),
    [`x-codex-${prefix}-reset-at`]: String(w.resetsAt),
  });
  return { ...pair('primary', windows.short, 300), ...pair('secondary', windows.week, 10_080) };
}

/**
 * The step that answers with the vendor's usage-limit error: Anthropic's 429 `rate_limit_error`
 * with the unified headers saying `rejected`; OpenAI's 429 `usage_limit_reached` with the reset
 * in its body, as ChatGPT-plan codex sees it.
 */
export function usageLimitStep(api: 'anthropic' | 'openai', windows: WindowsState): Step {
  if (api === 'anthropic') {
    return {
      error: { status: 429, message: "You've hit your usage limit" },
      headers: anthropicWindowHeaders(windows, true),
    };
  }
  const binding = windows.short.utilization >= windows.week.utilization ? windows.short : windows.week;
  return {
    error: {
      status: 429,
      message: "You've hit your usage limit.",
      body: JSON.stringify({
        error: {
          type: 'usage_limit_reached',
          message: "You've hit your usage limit.",
          plan_type: 'plus',
          resets_at: binding.resetsAt,
        },
      }),
    },
    headers: codexWindowHeaders(windows),
  };
}
