/**
 * The ledger: every usage report, priced, kept in memory (one entry per report: a few per turn)
 * so budgets can be checked on each report without a query, and summed by session, task, agent
 * or day for `baton cost`. Loaded once from the events table, then fed as reports are ingested.
 */
import type { Db } from '../store/db.js';
import { listUsageEvents } from '../store/usage.js';
import { SpendLog } from './burn.js';
import { reportCost, type Priced } from './price.js';
import { PRICE_TABLE, type PriceTable } from './prices.js';

export interface UsageSession {
  id: string;
  name: string;
  project: string;
  agent: string;
  /** The model the session was dispatched with; a report's own model wins. */
  model: string | null;
}

export interface UsageReport {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number | undefined;
  costUsd?: number | undefined;
  model?: string | undefined;
}

export interface UsageEntry {
  sessionId: string;
  name: string;
  project: string;
  agent: string;
  model: string | null;
  at: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  usd: number | null;
  source: Priced['source'];
}

export const GROUPINGS = ['session', 'task', 'agent', 'day'] as const;
export type Grouping = (typeof GROUPINGS)[number];

export interface CostRow {
  key: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  /** Dollars of the priced reports. */
  usd: number;
  /** Tokens of reports nobody could price (unknown model): counted, not priced. */
  unpricedTokens: number;
  unpricedModels: string[];
  sessions: number;
}

export class UsageLedger {
  private readonly entries: UsageEntry[] = [];
  /** Priced spends in time order, kept as entries come (budgets read it on every report). */
  private readonly spends = new SpendLog();
  private readonly perSession = new Map<string, { usd: number; tokens: number }>();

  constructor(private readonly table: PriceTable = PRICE_TABLE) {}

  /** Every report the store holds. */
  static load(db: Db, table: PriceTable = PRICE_TABLE): UsageLedger {
    const ledger = new UsageLedger(table);
    for (const row of listUsageEvents(db)) {
      const body = JSON.parse(row.body_json) as UsageReport;
      ledger.add(
        { id: row.session_id, name: row.name, project: row.project_name, agent: row.agent, model: row.model },
        body,
        Date.parse(row.ts),
      );
    }
    return ledger;
  }

  get priceTable(): PriceTable {
    return this.table;
  }

  add(session: UsageSession, report: UsageReport, at: number): UsageEntry {
    const model = report.model ?? session.model;
    const priced = reportCost(report, session.model, this.table);
    const entry: UsageEntry = {
      sessionId: session.id,
      name: session.name,
      project: session.project,
      agent: session.agent,
      model,
      at,
      inputTokens: report.inputTokens,
      outputTokens: report.outputTokens,
      cacheReadTokens: report.cacheReadTokens ?? 0,
      usd: priced.usd,
      source: priced.source,
    };
    this.entries.push(entry);
    if (entry.usd !== null) this.spends.add(at, entry.usd);
    const total = this.perSession.get(session.id) ?? { usd: 0, tokens: 0 };
    total.usd += entry.usd ?? 0;
    total.tokens += entry.inputTokens + entry.outputTokens + entry.cacheReadTokens;
    this.perSession.set(session.id, total);
    return entry;
  }

  /** A session's priced dollars and all its tokens. */
  session(sessionId: string): { usd: number; tokens: number } {
    return this.perSession.get(sessionId) ?? { usd: 0, tokens: 0 };
  }

  /** Priced spends in time order, for windows and burn rates. */
  series(): SpendLog {
    return this.spends;
  }

  list(): readonly UsageEntry[] {
    return this.entries;
  }

  /** Sums by `by`; `taskOf` names a session's task (sessions without one are "no task"). Largest spend first. */
  summarize(by: Grouping, taskOf: (sessionId: string) => string | undefined = () => undefined): CostRow[] {
    const rows = new Map<string, CostRow & { ids: Set<string>; models: Set<string> }>();
    for (const entry of this.entries) {
      const key = keyOf(entry, by, taskOf);
      let row = rows.get(key);
      if (row === undefined) {
        row = {
          key,
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          usd: 0,
          unpricedTokens: 0,
          unpricedModels: [],
          sessions: 0,
          ids: new Set(),
          models: new Set(),
        };
        rows.set(key, row);
      }
      row.inputTokens += entry.inputTokens;
      row.outputTokens += entry.outputTokens;
      row.cacheReadTokens += entry.cacheReadTokens;
      row.ids.add(entry.sessionId);
      if (entry.usd === null) {
        row.unpricedTokens += entry.inputTokens + entry.outputTokens + entry.cacheReadTokens;
        row.models.add(entry.model ?? '(model not reported)');
      } else row.usd += entry.usd;
    }
    return [...rows.values()]
      .map(({ ids, models, ...row }) => ({
        ...row,
        usd: Math.round(row.usd * 1e6) / 1e6,
        sessions: ids.size,
        unpricedModels: [...models].sort(),
      }))
      .sort((a, b) => b.usd - a.usd || a.key.localeCompare(b.key));
  }
}

function keyOf(entry: UsageEntry, by: Grouping, taskOf: (sessionId: string) => string | undefined): string {
  switch (by) {
    case 'session':
      return `${entry.project}/${entry.name}`;
    case 'task':
      return taskOf(entry.sessionId) ?? '(no task)';
    case 'agent':
      return entry.agent;
    case 'day':
      return new Date(entry.at).toISOString().slice(0, 10);
  }
}
