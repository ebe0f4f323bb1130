/**
 * Burn rate and time to exhaustion, from a recorded series of spends: "the 5 h window runs out in
 * 34 min at this rate". Pure functions of the series and `now`, so they are tested on recorded data.
 */

export interface Spend {
  /** Milliseconds since the epoch. */
  at: number;
  amount: number;
}

export interface WindowProjection {
  /** Spent inside the window ending now. */
  used: number;
  limit: number;
  /** Amount per hour over the recent stretch (`rateOverMs`), 0 when nothing was spent in it. */
  perHour: number;
  /** Milliseconds until `used` reaches `limit` at `perHour`; 0 when already there; null when nothing burns. */
  exhaustsInMs: number | null;
}

/** How far back the rate looks: long enough to smooth one turn's burst, short enough to follow a change of pace. */
export const DEFAULT_RATE_MS = 30 * 60_000;

/** Spent in `[now - windowMs, now]`. */
export function spentWithin(series: readonly Spend[], now: number, windowMs: number): number {
  let sum = 0;
  for (const spend of series) if (spend.at > now - windowMs && spend.at <= now) sum += spend.amount;
  return sum;
}

/**
 * The rate over the last `rateOverMs`, measured from the first spend inside that stretch (a session
 * that started five minutes ago burns at its five-minute pace, not diluted over thirty).
 */
export function burnPerHour(series: readonly Spend[], now: number, rateOverMs = DEFAULT_RATE_MS): number {
  const recent = series.filter((spend) => spend.at > now - rateOverMs && spend.at <= now);
  if (recent.length === 0) return 0;
  const first = Math.min(...recent.map((spend) => spend.at));
  // One minute at least: a single report a moment ago is not an infinite rate.
  const elapsed = Math.max(now - first, 60_000);
  const sum = recent.reduce((total, spend) => total + spend.amount, 0);
  return (sum / elapsed) * 3_600_000;
}

/**
 * Where a rolling window stands. Spends leaving the window free room as time passes, which a
 * constant-rate projection ignores: the figure is the conservative "at this rate" estimate.
 */
export function projectWindow(series: readonly Spend[], now: number, windowMs: number, limit: number, rateOverMs = DEFAULT_RATE_MS): WindowProjection {
  const used = spentWithin(series, now, windowMs);
  const perHour = burnPerHour(series, now, Math.min(rateOverMs, windowMs));
  const left = limit - used;
  const exhaustsInMs = left <= 0 ? 0 : perHour <= 0 ? null : Math.round((left / perHour) * 3_600_000);
  return { used, limit, perHour, exhaustsInMs };
}

/** Whether the window runs out within `horizonMs` at the current rate (a dispatch then warns first). */
export function wouldExhaust(projection: WindowProjection, horizonMs: number): boolean {
  return projection.exhaustsInMs !== null && projection.exhaustsInMs <= horizonMs;
}

/** "34 min", "2 h 5 min", "40 s": a duration for a person. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h${minutes % 60 === 0 ? '' : ` ${minutes % 60} min`}`;
}

/** Milliseconds since the start of the local day of `now`: a day budget counts from midnight. */
export function sinceMidnightMs(now: Date): number {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  return now.getTime() - midnight.getTime();
}
