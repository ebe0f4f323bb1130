/**
 * Budgets as people write them, and where each stands. Amounts are dollars (`2usd`, `$2`, `2`);
 * a window is `<duration>:<amount>` (`5h:200usd`). A bad value is an error naming its key.
 */
import { InvalidInputError } from '../shared/errors.js';
import type { BudgetRow } from '../store/watchdog.js';
import {
  formatDuration,
  projectWindow,
  sinceMidnightMs,
  type Spend,
  type SpendSeries,
} from '../usage/index.js';

export const DEFAULT_WARN_RATIO = 0.8;
const MAX_USD = 1_000_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const UNITS_MS: Record<string, number> = { m: MINUTE, h: HOUR, d: DAY };

export interface BudgetInput {
  session?: string | undefined;
  day?: string | undefined;
  window?: string[] | undefined;
  warnAt?: string | undefined;
}

/** The rows `input` sets, or an error that names the first bad key. */
export function parseBudgets(input: BudgetInput, now: Date): BudgetRow[] {
  const warn = input.warnAt === undefined ? DEFAULT_WARN_RATIO : parseRatio(input.warnAt, 'warnAt');
  const row = (scope: string, limit: number, windowMs: number | null): BudgetRow => ({
    scope,
    window_ms: windowMs,
    limit_usd: limit,
    warn_ratio: warn,
    updated_at: now.toISOString(),
  });
  const rows: BudgetRow[] = [];
  if (input.session !== undefined) rows.push(row('session', parseUsd(input.session, 'session'), null));
  if (input.day !== undefined) rows.push(row('day', parseUsd(input.day, 'day'), null));
  for (const spec of input.window ?? []) {
    const [duration, amount, extra] = spec.split(':');
    if (duration === undefined || amount === undefined || extra !== undefined)
      throw new InvalidInputError(`window: "${spec}" is not <duration>:<amount>; write it as 5h:200usd`, {
        key: 'window',
      });
    const ms = parseDuration(duration, 'window');
    rows.push(row(windowScope(ms), parseUsd(amount, 'window'), ms));
  }
  if (rows.length === 0)
    throw new InvalidInputError(
      'Nothing to set: give --session, --day or --window (e.g. --session 2usd --day 40usd --window 5h:200usd).',
    );
  return rows;
}

/** `2usd`, `$2.50`, `2` → dollars. */
export function parseUsd(text: string, key: string): number {
  const match = /^\s*\$?\s*(\d+(?:\.\d+)?)\s*(usd|\$)?\s*$/i.exec(text);
  const usd = match === null ? NaN : Number(match[1]);
  if (!Number.isFinite(usd) || usd <= 0 || usd > MAX_USD) {
    throw new InvalidInputError(
      `${key}: "${text}" is not an amount of dollars above 0; write it as 2usd or $2`,
      { key },
    );
  }
  return usd;
}

/** `30m`, `5h`, `7d` → milliseconds. */
export function parseDuration(text: string, key: string): number {
  const match = /^\s*(\d+)\s*([mhd])\s*$/i.exec(text);
  const n = match === null ? NaN : Number(match[1]);
  const unit = UNITS_MS[(match?.[2] ?? '').toLowerCase()];
  if (!Number.isInteger(n) || n <= 0 || unit === undefined || n * unit > 31 * DAY) {
    throw new InvalidInputError(
      `${key}: "${text}" is not a duration; write it as 30m, 5h or 7d (31 days at most)`,
      { key },
    );
  }
  return n * unit;
}

/** `80%` or `0.8` → 0.8. */
function parseRatio(text: string, key: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  const value = match === null ? NaN : Number(match[1]) / (match[2] === '%' ? 100 : 1);
  if (!Number.isFinite(value) || value <= 0 || value > 1)
    throw new InvalidInputError(`${key}: "${text}" is not a share of the limit; write it as 80%`, { key });
  return value;
}

export function windowScope(ms: number): string {
  return `window:${durationName(ms)}`;
}

/** A scope as given to `budget rm`: `session`, `day`, `window:5h` (or `5h`). */
export function normalizeScope(text: string): string {
  if (text === 'session' || text === 'day') return text;
  const duration = text.startsWith('window:') ? text.slice('window:'.length) : text;
  if (/^\d+[mhd]$/i.test(duration)) return windowScope(parseDuration(duration, 'scope'));
  throw new InvalidInputError(
    `"${text}" is not a budget: use session, day or window:<duration> (e.g. window:5h)`,
    { key: 'scope' },
  );
}

function durationName(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY}d`;
  if (ms % HOUR === 0) return `${ms / HOUR}h`;
  return `${ms / MINUTE}m`;
}

export function budgetLabel(row: Pick<BudgetRow, 'scope' | 'window_ms'>): string {
  if (row.scope === 'session') return 'each session';
  if (row.scope === 'day') return 'today';
  return `${durationName(row.window_ms ?? 0)} window`;
}

/** How much of a workspace-wide budget (day, window) is spent and when it runs out at this rate. */
export function standing(
  row: BudgetRow,
  series: readonly Spend[] | SpendSeries,
  now: Date,
): { used: number; perHour: number; exhaustsInMs: number | null; summary: string } {
  const span = row.scope === 'day' ? sinceMidnightMs(now) : (row.window_ms ?? 0);
  const projection = projectWindow(series, now.getTime(), Math.max(span, 1), row.limit_usd);
  const label = budgetLabel(row);
  const head = `${label}: $${projection.used.toFixed(2)} of $${row.limit_usd.toFixed(2)}`;
  let tail = '';
  if (projection.exhaustsInMs === 0) tail = '; reached';
  else if (projection.exhaustsInMs !== null)
    tail = `; the ${label} runs out in ${formatDuration(projection.exhaustsInMs)} at this rate ($${projection.perHour.toFixed(2)}/h)`;
  return {
    used: projection.used,
    perHour: projection.perHour,
    exhaustsInMs: projection.exhaustsInMs,
    summary: head + tail,
  };
}
