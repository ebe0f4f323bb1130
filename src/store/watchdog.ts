/** The watchdog's rows: budgets, alerts, and the events already notified (migration 009). */
import type { Db } from './db.js';

export interface BudgetRow {
  /** `session` (each session), `day` (all sessions, today), `window:<ms>` (all sessions, a rolling window). */
  scope: string;
  window_ms: number | null;
  limit_usd: number;
  warn_ratio: number;
  updated_at: string;
}

export interface AlertRow {
  id: string;
  raised_at: string;
  rule: string;
  session_id: string | null;
  session_name: string | null;
  project: string | null;
  message: string;
  evidence_json: string;
  action: string;
  dedupe_key: string;
  acknowledged_at: string | null;
  /** The machine whose watchdog raised it, on a store several machines share. */
  machine?: string | null;
}

export class BudgetStore {
  constructor(private readonly db: Db) {}

  list(): BudgetRow[] {
    return this.db.prepare('SELECT * FROM budgets ORDER BY scope').all() as BudgetRow[];
  }

  put(row: BudgetRow): void {
    this.db
      .prepare(
        `INSERT INTO budgets (scope, window_ms, limit_usd, warn_ratio, updated_at) VALUES (@scope, @window_ms, @limit_usd, @warn_ratio, @updated_at)
         ON CONFLICT (scope) DO UPDATE SET window_ms = @window_ms, limit_usd = @limit_usd, warn_ratio = @warn_ratio, updated_at = @updated_at`,
      )
      .run(row);
  }

  remove(scope: string): boolean {
    return this.db.prepare('DELETE FROM budgets WHERE scope = ?').run(scope).changes > 0;
  }
}

export class AlertStore {
  constructor(private readonly db: Db) {}

  /** Stores the alert unless one with its key is still open; returns whether it was new. */
  insert(row: AlertRow): boolean {
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO alerts (id, raised_at, rule, session_id, session_name, project, message, evidence_json, action, dedupe_key, acknowledged_at)
         VALUES (@id, @raised_at, @rule, @session_id, @session_name, @project, @message, @evidence_json, @action, @dedupe_key, @acknowledged_at)`,
      )
      .run(row);
    return result.changes > 0;
  }

  get(id: string): AlertRow | undefined {
    return this.db.prepare('SELECT * FROM alerts WHERE id = ?').get(id) as AlertRow | undefined;
  }

  /** Newest first. */
  list(options: { open?: boolean; limit?: number } = {}): AlertRow[] {
    const where = options.open === true ? 'WHERE acknowledged_at IS NULL' : '';
    return this.db
      .prepare(`SELECT * FROM alerts ${where} ORDER BY raised_at DESC, id DESC LIMIT ?`)
      .all(options.limit ?? 200) as AlertRow[];
  }

  openFor(sessionId: string): AlertRow[] {
    return this.db
      .prepare('SELECT * FROM alerts WHERE session_id = ? AND acknowledged_at IS NULL ORDER BY raised_at')
      .all(sessionId) as AlertRow[];
  }

  acknowledge(id: string, at: string): boolean {
    return (
      this.db
        .prepare('UPDATE alerts SET acknowledged_at = ? WHERE id = ? AND acknowledged_at IS NULL')
        .run(at, id).changes > 0
    );
  }
}

export class NotifiedStore {
  constructor(private readonly db: Db) {}

  /** Claims `seq` for a notification: false when it was claimed before (this run or an earlier one). */
  claim(seq: number, at: string): boolean {
    return (
      this.db.prepare('INSERT OR IGNORE INTO notifications_sent (seq, sent_at) VALUES (?, ?)').run(seq, at)
        .changes > 0
    );
  }
}
