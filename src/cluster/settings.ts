/**
 * The workspace settings (src/settings) on the shared PostgreSQL: one set of allow rules, budgets
 * and alerts for every machine (decisions 130 and 134). A write NOTIFYs `baton_settings` with its table in
 * the same transaction; every machine's `onChange` fires on the notification (its own writes
 * included), and for both tables after its LISTEN connection comes back, since what changed
 * meanwhile is unknown.
 *
 * An allow rule for a repository is stored under the repository's identity (its remote's URL,
 * `remoteKey`), so it holds in every machine's clone; a repository with no remote is known to
 * one machine only, and its rules are stored under that machine's name and root.
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type {
  AlertRow,
  AlertsTable,
  AllowRuleRow,
  AllowRules,
  Budgets,
  BudgetRow,
  SettingsStore,
  SettingsTable,
} from '../settings/index.js';
import { remoteKey } from './clones.js';
import { isConnectionLoss, unreachable } from './connect.js';
import type { Listener } from './listener.js';
import { inTransaction } from './transaction.js';

export const SETTINGS_CHANNEL = 'baton_settings';
const TABLES: readonly SettingsTable[] = ['allow_rules', 'budgets', 'alerts'];
const ALERT_COLUMNS =
  'id, raised_at, rule, session_id, session_name, project, message, evidence_json, action, dedupe_key, acknowledged_at, machine';

interface StoredRule {
  id: string;
  repository: string | null;
  project_root: string | null;
  tool: string | null;
  pattern: string | null;
  source: AllowRuleRow['source'];
  created_at: Date;
}

interface StoredBudget {
  scope: string;
  window_ms: string | null;
  limit_usd: number;
  warn_ratio: number;
  updated_at: string;
}

export class PgSettings implements SettingsStore {
  readonly shared = true;
  readonly allowRules: AllowRules;
  readonly budgets: Budgets;
  readonly alerts: AlertsTable;
  private readonly changes = new EventEmitter<{ change: [SettingsTable] }>();
  private readonly unlisten: () => void;

  constructor(
    private readonly pool: pg.Pool,
    listener: Listener,
    /** This machine's name: the owner of its repositories that have no remote. */
    private readonly machine: string,
    /** The store as errors name it (host and database, never the password). */
    private readonly target = 'the shared store',
  ) {
    this.changes.setMaxListeners(0);
    const onNotification = (channel: string, payload: string): void => {
      if (channel === SETTINGS_CHANNEL && (TABLES as readonly string[]).includes(payload))
        this.changes.emit('change', payload as SettingsTable);
    };
    const onConnected = (): void => {
      for (const table of TABLES) this.changes.emit('change', table);
    };
    listener.on('notification', onNotification);
    listener.on('connected', onConnected);
    this.unlisten = () => {
      listener.off('notification', onNotification);
      listener.off('connected', onConnected);
    };
    this.allowRules = {
      add: (rule) => this.addRule(rule),
      get: async (id) => {
        const { rows } = await this.query<StoredRule>('SELECT * FROM allow_rules WHERE id = $1', [id]);
        return rows[0] === undefined ? undefined : ruleRow(rows[0]);
      },
      list: (projectRoot) => this.listRules(projectRoot),
      remove: async (id) =>
        (await this.write('allow_rules', 'DELETE FROM allow_rules WHERE id = $1', [id])) > 0,
    };
    this.budgets = {
      list: async () =>
        (
          await this.query<StoredBudget>(
            'SELECT scope, window_ms, limit_usd, warn_ratio, updated_at FROM budgets ORDER BY scope',
          )
        ).rows.map(budgetRow),
      put: async (row) => {
        await this.write(
          'budgets',
          `INSERT INTO budgets (scope, window_ms, limit_usd, warn_ratio, updated_at, machine) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (scope) DO UPDATE SET window_ms = $2, limit_usd = $3, warn_ratio = $4, updated_at = $5, machine = $6`,
          [row.scope, row.window_ms, row.limit_usd, row.warn_ratio, row.updated_at, this.machine],
        );
      },
      remove: async (scope) =>
        (await this.write('budgets', 'DELETE FROM budgets WHERE scope = $1', [scope])) > 0,
    };
    this.alerts = this.alertsTable();
  }

  private alertsTable(): AlertsTable {
    const read = async (sql: string, values: unknown[]): Promise<AlertRow[]> =>
      (await this.query<AlertRow>(sql, values)).rows;
    return {
      insert: async (row) =>
        (await this.write(
          'alerts',
          `INSERT INTO alerts (${ALERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           ON CONFLICT (dedupe_key) WHERE acknowledged_at IS NULL DO NOTHING`,
          [
            row.id,
            row.raised_at,
            row.rule,
            row.session_id,
            row.session_name,
            row.project,
            row.message,
            row.evidence_json,
            row.action,
            row.dedupe_key,
            row.acknowledged_at,
            this.machine,
          ],
        )) > 0,
      get: async (id) => (await read(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE id = $1`, [id]))[0],
      list: async (options = {}) =>
        read(
          `SELECT ${ALERT_COLUMNS} FROM alerts ${options.open === true ? 'WHERE acknowledged_at IS NULL' : ''} ORDER BY raised_at DESC, id DESC LIMIT $1`,
          [options.limit ?? 200],
        ),
      openFor: async (sessionId) =>
        read(
          `SELECT ${ALERT_COLUMNS} FROM alerts WHERE session_id = $1 AND acknowledged_at IS NULL ORDER BY raised_at`,
          [sessionId],
        ),
      acknowledge: async (id, at) =>
        (await this.write(
          'alerts',
          'UPDATE alerts SET acknowledged_at = $2 WHERE id = $1 AND acknowledged_at IS NULL',
          [id, at],
        )) > 0,
    };
  }

  onChange(listener: (table: SettingsTable) => void): () => void {
    this.changes.on('change', listener);
    return () => void this.changes.off('change', listener);
  }

  close(): void {
    this.unlisten();
    this.changes.removeAllListeners();
  }

  private async addRule(rule: Omit<AllowRuleRow, 'id' | 'created_at'>): Promise<AllowRuleRow> {
    const repository = rule.project_root === null ? null : await this.repositoryOf(rule.project_root);
    const stored = await this.writeReturning<StoredRule>(
      'allow_rules',
      'INSERT INTO allow_rules (repository, project_root, machine, tool, pattern, source) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
      [repository, rule.project_root, this.machine, rule.tool, rule.pattern, rule.source],
    );
    return ruleRow(stored);
  }

  private async listRules(projectRoot: string | undefined): Promise<AllowRuleRow[]> {
    if (projectRoot === undefined)
      return (await this.query<StoredRule>('SELECT * FROM allow_rules ORDER BY id')).rows.map(ruleRow);
    const repository = await this.repositoryOf(projectRoot);
    const { rows } = await this.query<StoredRule>(
      'SELECT * FROM allow_rules WHERE repository IS NULL OR repository = $1 ORDER BY id',
      [repository],
    );
    // Made in another clone of this repository: shown (and matched) as this one's.
    return rows.map((row) => ({
      ...ruleRow(row),
      project_root: row.repository === null ? null : projectRoot,
    }));
  }

  private async repositoryOf(root: string): Promise<string> {
    return (await remoteKey(root)) ?? `${this.machine}:${root}`;
  }

  /** Runs one write and its notification in one transaction; returns the rows it changed. */
  private async write(table: SettingsTable, sql: string, values: unknown[]): Promise<number> {
    return (await this.transact(table, sql, values)).rowCount ?? 0;
  }

  private async writeReturning<T extends pg.QueryResultRow>(
    table: SettingsTable,
    sql: string,
    values: unknown[],
  ): Promise<T> {
    const { rows } = await this.transact<T>(table, sql, values);
    if (rows[0] === undefined) throw new Error(`the store returned no row for a write to ${table}`);
    return rows[0];
  }

  /** One query; a store that cannot be reached is a 503 naming it, not an internal error. */
  private async query<T extends pg.QueryResultRow>(
    sql: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<T>> {
    try {
      return await this.pool.query<T>(sql, values);
    } catch (error) {
      throw this.lost(error);
    }
  }

  private lost(error: unknown): unknown {
    return isConnectionLoss(error) ? unreachable(this.target, error) : error;
  }

  private async transact<T extends pg.QueryResultRow>(
    table: SettingsTable,
    sql: string,
    values: unknown[],
  ): Promise<pg.QueryResult<T>> {
    try {
      return await inTransaction(this.pool, async (client) => {
        const result = await client.query<T>(sql, values);
        if ((result.rowCount ?? 0) > 0)
          await client.query('SELECT pg_notify($1, $2)', [SETTINGS_CHANNEL, table]);
        return result;
      });
    } catch (error) {
      throw this.lost(error);
    }
  }
}

function ruleRow(row: StoredRule): AllowRuleRow {
  return {
    id: Number(row.id),
    project_root: row.project_root,
    tool: row.tool,
    pattern: row.pattern,
    source: row.source,
    created_at: row.created_at.toISOString(),
  };
}

function budgetRow(row: StoredBudget): BudgetRow {
  return {
    scope: row.scope,
    window_ms: row.window_ms === null ? null : Number(row.window_ms),
    limit_usd: row.limit_usd,
    warn_ratio: row.warn_ratio,
    updated_at: row.updated_at,
  };
}
