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

/** What a budget reads of a series: sums and first spends over stretches of time. */
export interface SpendSeries {
  /** Spent in `(since, until]`. */
  sum(since: number, until: number): number;
  /** The time of the first spend in `(since, until]`, if any. */
  first(since: number, until: number): number | undefined;
}

/** Several series read as one (this machine's spends and the other machines'). */
export function combineSpends(...parts: SpendSeries[]): SpendSeries {
  return {
    sum: (since, until) => parts.reduce((total, part) => total + part.sum(since, until), 0),
    first: (since, until) => {
      const firsts = parts.map((part) => part.first(since, until)).filter((at) => at !== undefined);
      return firsts.length === 0 ? undefined : Math.min(...firsts);
    },
  };
}

function isList(series: readonly Spend[] | SpendSeries): series is readonly Spend[] {
  return Array.isArray(series);
}

/**
 * Spends in time order with running sums, so what a window holds is two binary searches: a budget
 * check on every usage report costs the same after a thousand reports as after one.
 */
export class SpendLog implements SpendSeries {
  private readonly times: number[] = [];
  private readonly amounts: number[] = [];
  /** cum[i]: the sum of the first i spends. */
  private readonly cum: number[] = [0];

  static of(series: readonly Spend[] | SpendSeries): SpendSeries {
    if (!isList(series)) return series;
    const log = new SpendLog();
    for (const spend of series) log.add(spend.at, spend.amount);
    return log;
  }

  add(at: number, amount: number): void {
    const index = this.after(at);
    this.times.splice(index, 0, at);
    this.amounts.splice(index, 0, amount);
    // In order (the usual case) this appends one sum; a report ingested late (another session's
    // backlog) recomputes the sums after it.
    this.cum.length = index + 1;
    for (let i = index; i < this.times.length; i++)
      this.cum.push((this.cum[i] ?? 0) + (this.amounts[i] ?? 0));
  }

  /** Spent in `(since, until]`. */
  sum(since: number, until: number): number {
    return (this.cum[this.after(until)] ?? 0) - (this.cum[this.after(since)] ?? 0);
  }

  /** The time of the first spend in `(since, until]`, if any. */
  first(since: number, until: number): number | undefined {
    const index = this.after(since);
    const at = this.times[index];
    return at !== undefined && at <= until ? at : undefined;
  }

  /** The spends in `(since, until]`, oldest first. */
  within(since: number, until: number): Spend[] {
    const spends: Spend[] = [];
    for (let i = this.after(since); i < this.times.length && (this.times[i] ?? 0) <= until; i++)
      spends.push({ at: this.times[i] ?? 0, amount: this.amounts[i] ?? 0 });
    return spends;
  }

  get length(): number {
    return this.times.length;
  }

  /** How many spends are at or before `at`. */
  private after(at: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.times[mid] ?? 0) <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Spent in `(now - windowMs, now]`. */
export function spentWithin(series: readonly Spend[] | SpendSeries, now: number, windowMs: number): number {
  return SpendLog.of(series).sum(now - windowMs, now);
}

/**
 * The rate over the last `rateOverMs`, measured from the first spend inside that stretch (a session
 * that started five minutes ago burns at its five-minute pace, not diluted over thirty).
 */
export function burnPerHour(
  series: readonly Spend[] | SpendSeries,
  now: number,
  rateOverMs = DEFAULT_RATE_MS,
): number {
  const log = SpendLog.of(series);
  const first = log.first(now - rateOverMs, now);
  if (first === undefined) return 0;
  // One minute at least: a single report a moment ago is not an infinite rate.
  const elapsed = Math.max(now - first, 60_000);
  return (log.sum(now - rateOverMs, now) / elapsed) * 3_600_000;
}

/**
 * Where a rolling window stands. Spends leaving the window free room as time passes, which a
 * constant-rate projection ignores: the figure is the conservative "at this rate" estimate.
 */
export function projectWindow(
  series: readonly Spend[] | SpendSeries,
  now: number,
  windowMs: number,
  limit: number,
  rateOverMs = DEFAULT_RATE_MS,
): WindowProjection {
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
