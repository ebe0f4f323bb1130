/**
 * Workspace settings every machine of a workspace holds to (decision 130, "Allow rules and budgets
 * behind one store interface"): allow rules and budgets, and the watchdog's alerts, which every machine
 * shows and any may acknowledge. One interface, two stores: `sqliteSettings` (this machine's SQLite,
 * the embedded default) and the cluster's `PgSettings` (src/cluster/settings.ts, one PostgreSQL shared
 * by every machine), which pass the same suite (test/support/settings-suite.ts).
 *
 * Everything is asynchronous so a shared store fits behind it; whoever reads on a hot path keeps
 * a copy and reloads it on `onChange`, which fires after every write through this store and, on
 * a shared store, after another machine's.
 *
 * Allow rules are scoped by repository root here; a shared store matches them by the
 * repository's identity (its remote's URL), so a rule made in one clone holds in every machine's
 * clone of that repository.
 */
import type { AllowRuleRow } from '../store/allow-rules.js';
import type { AlertRow, BudgetRow } from '../store/watchdog.js';

export type { AllowRuleRow } from '../store/allow-rules.js';
export type { AlertRow, BudgetRow } from '../store/watchdog.js';
export { sqliteSettings } from './sqlite.js';

export type NewAllowRule = Omit<AllowRuleRow, 'id' | 'created_at'>;
export type SettingsTable = 'allow_rules' | 'budgets' | 'alerts';

export interface AllowRules {
  add(rule: NewAllowRule): Promise<AllowRuleRow>;
  get(id: number): Promise<AllowRuleRow | undefined>;
  /** The rules that apply in the repository at `projectRoot` (its own and everyone's), oldest first; every rule when unset. */
  list(projectRoot?: string): Promise<AllowRuleRow[]>;
  remove(id: number): Promise<boolean>;
}

export interface Budgets {
  /** By scope. */
  list(): Promise<BudgetRow[]>;
  /** Sets the budget of `row.scope`, replacing the one before. */
  put(row: BudgetRow): Promise<void>;
  remove(scope: string): Promise<boolean>;
}

export interface AlertsTable {
  /** Stores the alert unless one with its key is still open; returns whether it was new. */
  insert(row: AlertRow): Promise<boolean>;
  get(id: string): Promise<AlertRow | undefined>;
  /** Newest first; open ones only with `open`; at most `limit` (default 200). */
  list(options?: { open?: boolean; limit?: number }): Promise<AlertRow[]>;
  /** A session's open alerts, oldest first. */
  openFor(sessionId: string): Promise<AlertRow[]>;
  /** Acknowledges an open alert; false when it was not open. */
  acknowledge(id: string, at: string): Promise<boolean>;
}

export interface SettingsStore {
  /** Whether other machines share it (and may change it under us). */
  readonly shared: boolean;
  readonly allowRules: AllowRules;
  readonly budgets: Budgets;
  readonly alerts: AlertsTable;
  /** Called after a table changed; returns the unsubscribe. */
  onChange(listener: (table: SettingsTable) => void): () => void;
}
