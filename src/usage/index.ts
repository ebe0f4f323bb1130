/**
 * Usage and cost (decision 85, "Cost is priced where it is read"): every agent's tokens priced (the
 * agent's own cost, else the price table's, never $0 for an unknown model), summed by session, task,
 * agent or day; burn rate and time to exhaustion; the subscription windows agents report. Fed by the
 * sessions' ingested events.
 */
import type { CostReport } from '../api/watchdog.js';
import type { BatonEvent } from '../events/index.js';
import type { Db } from '../store/db.js';
import { listUsageEvents } from '../store/usage.js';
import { burnPerHour, sinceMidnightMs } from './burn.js';
import { UsageLedger, type CostRow, type Grouping, type UsageEntry, type UsageSession } from './ledger.js';
import { PRICE_TABLE, type PriceTable } from './prices.js';
import { AgentWindows, type WindowReport } from './windows.js';

export {
  burnPerHour,
  combineSpends,
  formatDuration,
  projectWindow,
  sinceMidnightMs,
  SpendLog,
  spentWithin,
  wouldExhaust,
  type Spend,
  type SpendSeries,
  type WindowProjection,
} from './burn.js';
export {
  GROUPINGS,
  UsageLedger,
  type CostRow,
  type Grouping,
  type UsageEntry,
  type UsageSession,
} from './ledger.js';
export { priceOf, priceUsage, reportCost } from './price.js';
export { PRICE_TABLE, type ModelPrice, type PriceTable } from './prices.js';
export { AgentWindows, type WindowReport, type WindowView } from './windows.js';
export {
  DEFAULT_HOLD_AT_PERCENT,
  projectedAtReset,
  WINDOW_GATE,
  windowHold,
  type WindowHoldInput,
} from './hold.js';

export type Clock = () => Date;

export class UsageTracker {
  readonly ledger: UsageLedger;
  readonly windows = new AgentWindows();
  private readonly listeners: ((entry: UsageEntry) => void)[] = [];

  constructor(
    db: Db,
    private readonly clock: Clock = () => new Date(),
    table: PriceTable = PRICE_TABLE,
  ) {
    this.ledger = UsageLedger.load(db, table);
    for (const row of listUsageEvents(db, 'limits.reported')) {
      this.windows.add(
        row.agent,
        (JSON.parse(row.body_json) as { windows: WindowReport[] }).windows,
        Date.parse(row.ts),
      );
    }
  }

  /** Called for every ingested session event; usage and limits reports are taken, the rest ignored. */
  observe(session: UsageSession, event: BatonEvent): void {
    if (event.type === 'limits.reported')
      this.windows.add(session.agent, event.windows, Date.parse(event.ts));
    if (event.type !== 'usage.reported') return;
    const entry = this.ledger.add(session, event, Date.parse(event.ts));
    for (const listener of this.listeners) listener(entry);
  }

  /** `listener` hears every new priced entry (the budgets). */
  /** Calls `listener` with each priced entry; returns the unsubscribe. */
  onEntry(listener: (entry: UsageEntry) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at !== -1) this.listeners.splice(at, 1);
    };
  }

  report(by: Grouping, taskOf?: (sessionId: string) => string | undefined): Omit<CostReport, 'budgets'> {
    const now = this.clock();
    const rows = this.ledger.summarize(by, taskOf);
    const series = this.ledger.series();
    const nowMs = now.getTime();
    return {
      by,
      rows,
      total: total(rows),
      perHourUsd: round(burnPerHour(series, nowMs)),
      todayUsd: round(series.sum(nowMs - sinceMidnightMs(now), nowMs)),
      priceTable: { date: this.ledger.priceTable.date, models: Object.keys(this.ledger.priceTable.models) },
      windows: this.windows.list(nowMs),
      hourly: hourly(
        this.ledger.list().flatMap((e) => (e.usd === null ? [] : [{ at: e.at, amount: e.usd }])),
        nowMs,
      ),
    };
  }
}

function total(rows: CostRow[]): CostRow {
  const sum = (pick: (row: CostRow) => number): number => rows.reduce((acc, row) => acc + pick(row), 0);
  return {
    key: 'total',
    inputTokens: sum((r) => r.inputTokens),
    outputTokens: sum((r) => r.outputTokens),
    cacheReadTokens: sum((r) => r.cacheReadTokens),
    usd: round(sum((r) => r.usd)),
    unpricedTokens: sum((r) => r.unpricedTokens),
    unpricedModels: [...new Set(rows.flatMap((r) => r.unpricedModels))].sort(),
    sessions: sum((r) => r.sessions),
  };
}

/** Spend in each of the last 24 hours, oldest first. */
function hourly(
  series: readonly { at: number; amount: number }[],
  now: number,
): { hour: string; usd: number }[] {
  const HOUR = 3_600_000;
  const end = Math.floor(now / HOUR) * HOUR + HOUR;
  const buckets = Array.from({ length: 24 }, (_, i) => ({ start: end - (24 - i) * HOUR, usd: 0 }));
  for (const spend of series) {
    const index = Math.floor((spend.at - (end - 24 * HOUR)) / HOUR);
    const bucket = buckets[index];
    if (bucket !== undefined) bucket.usd += spend.amount;
  }
  return buckets.map((b) => ({ hour: new Date(b.start).toISOString(), usd: round(b.usd) }));
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
