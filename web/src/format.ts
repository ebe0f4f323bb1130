/** Small formatting helpers shared by the views. */
import { formatUsd } from '../../src/events/format.js';
import type { SessionState } from '../../src/events/index.js';

export function ago(iso: string | null, now = Date.now()): string {
  if (iso === null) return '—';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 45) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours}h`;
  return `${Math.round(hours / 24)}d`;
}

export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The same figure as `baton cost`, `ls` and `peek` print (decision 154). */
export const usd = formatUsd;

export const STATE_LABEL: Record<SessionState, string> = {
  queued: 'Queued',
  preparing: 'Preparing',
  starting: 'Starting',
  working: 'Working',
  needs_input: 'Needs input',
  ready_for_review: 'Ready for review',
  completed: 'Completed',
  failed: 'Failed',
  stopped: 'Stopped',
};
