/** The embedded settings store: this machine's SQLite tables, behind the shared interface. */
import { EventEmitter } from 'node:events';
import { AllowRuleStore } from '../store/allow-rules.js';
import type { Db } from '../store/db.js';
import { AlertStore, BudgetStore } from '../store/watchdog.js';
import type { SettingsStore, SettingsTable } from './index.js';

export function sqliteSettings(db: Db): SettingsStore {
  const rules = new AllowRuleStore(db);
  const budgets = new BudgetStore(db);
  const alerts = new AlertStore(db);
  const changes = new EventEmitter<{ change: [SettingsTable] }>();
  changes.setMaxListeners(0);
  const changed = <T>(table: SettingsTable, result: T, really = true): T => {
    if (really) changes.emit('change', table);
    return result;
  };
  return {
    shared: false,
    allowRules: {
      add: async (rule) => changed('allow_rules', rules.add(rule)),
      get: async (id) => rules.get(id),
      list: async (projectRoot) => rules.list(projectRoot),
      remove: async (id) => {
        const removed = rules.remove(id);
        return changed('allow_rules', removed, removed);
      },
    },
    budgets: {
      list: async () => budgets.list(),
      put: async (row) => changed('budgets', budgets.put(row)),
      remove: async (scope) => {
        const removed = budgets.remove(scope);
        return changed('budgets', removed, removed);
      },
    },
    alerts: {
      insert: async (row) => {
        const added = alerts.insert(row);
        return changed('alerts', added, added);
      },
      get: async (id) => alerts.get(id),
      list: async (options) => alerts.list(options),
      openFor: async (sessionId) => alerts.openFor(sessionId),
      acknowledge: async (id, at) => {
        const done = alerts.acknowledge(id, at);
        return changed('alerts', done, done);
      },
    },
    onChange: (listener) => {
      changes.on('change', listener);
      return () => void changes.off('change', listener);
    },
  };
}
