/**
 * Admission by subscription window (decision 300): a new session of an agent waits in the queue
 * while one of that agent's windows is used up, or while the window's projection at the current
 * burn rate — raised by the share the new session adds — crosses the threshold before the window
 * resets. A user who knows better dispatches with `--force`.
 */
import { formatDuration } from './burn.js';
import type { WindowView } from './windows.js';

export const WINDOW_GATE = 'window';
/** Percent of a window the projection may reach at its reset before new work waits (decision 300). */
export const DEFAULT_HOLD_AT_PERCENT = 100;

export interface WindowHoldInput {
  /** The agent kind of the queued session. */
  agent: string;
  windows: readonly WindowView[];
  /** Sessions of that agent at work now: the burn is theirs, one more adds its share. */
  atWork: number;
  now: number;
  holdAtPercent?: number;
}

/**
 * How long a new session is counted as burning beside the others: a session's work is about an
 * hour, not the rest of a week, so its share is added for that long only (decision 300).
 */
export const SESSION_HOURS = 1;

/**
 * What a window is projected to reach at its reset: the burn of the sessions at work until then,
 * plus one more session's share (the rate split among those at work) for its own hour.
 */
export function projectedAtReset(window: WindowView, atWork: number, now: number): number | null {
  if (window.resetsAt === null || window.perHour === null) return null;
  const hours = (Date.parse(window.resetsAt) - now) / 3_600_000;
  if (hours <= 0) return null;
  const rate = Math.max(0, window.perHour);
  const share = rate / Math.max(atWork, 1);
  return window.usedPercent + rate * hours + share * Math.min(hours, SESSION_HOURS);
}

/** Why a queued session of `agent` must wait for its windows, or undefined to let it start. */
export function windowHold(input: WindowHoldInput): string | undefined {
  const limit = input.holdAtPercent ?? DEFAULT_HOLD_AT_PERCENT;
  for (const window of input.windows) {
    if (window.agent !== input.agent) continue;
    const resetsAt = window.resetsAt === null ? null : Date.parse(window.resetsAt);
    // A window past its reset says nothing of the new one.
    if (resetsAt !== null && resetsAt <= input.now) continue;
    const until = resetsAt === null ? '' : ` until it resets in ${formatDuration(resetsAt - input.now)}`;
    if (window.usedPercent >= 100)
      return `waiting for the ${window.agent} ${window.name} window: used up${until} (--force starts it now)`;
    const projected = projectedAtReset(window, input.atWork, input.now);
    if (projected === null || projected < limit) continue;
    return `waiting for the ${window.agent} ${window.name} window: ${Math.round(window.usedPercent)}% used, ~${Math.round(projected)}% by its reset at this rate with one more session${until} (--force starts it now)`;
  }
  return undefined;
}
