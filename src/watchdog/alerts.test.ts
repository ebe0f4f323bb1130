import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { sqliteSettings, type AlertsTable } from '../settings/index.js';
import { openDb, type Db } from '../store/db.js';
import { Alerts } from './alerts.js';

const opened: { dir: string; db: Db }[] = [];
afterEach(() => {
  for (const { dir, db } of opened.splice(0)) {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** This machine's real alerts table behind a shared store's network edge, which can go away. */
function edge(): { table: AlertsTable; down: (is: boolean) => void; db: Db; bus: WorkspaceBus } {
  const dir = mkdtempSync(join(tmpdir(), 'baton-alerts-'));
  const db = openDb(join(dir, 'baton.db'));
  opened.push({ dir, db });
  const real = sqliteSettings(db).alerts;
  let away = false;
  const reach = <T>(run: () => Promise<T>): Promise<T> =>
    away ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) : run();
  return {
    table: {
      insert: (row) => reach(() => real.insert(row)),
      get: (id) => reach(() => real.get(id)),
      list: (o) => reach(() => real.list(o)),
      openFor: (id) => reach(() => real.openFor(id)),
      acknowledge: (id, at) => reach(() => real.acknowledge(id, at)),
    },
    down: (is) => (away = is),
    db,
    bus: new WorkspaceBus(db),
  };
}

describe('alerts while their store is away', () => {
  it('are acted on once, not lost to the outage, and not acted on again when the store takes them', async () => {
    const store = edge();
    const alerts = new Alerts(store.table, store.bus, () => new Date('2026-11-24T04:00:00Z'));
    const budget = {
      rule: 'budget' as const,
      session: { id: 's1', name: 'spender', project: 'shop' },
      message: 'budget reached',
      evidence: [],
      action: 'pause' as const,
      key: 'budget:day:s1',
    };
    store.down(true);
    expect(await alerts.raise(budget)).toMatchObject({ rule: 'budget', name: 'spender', action: 'pause' });
    expect(await alerts.raise(budget)).toBeUndefined();
    expect(store.bus.list().filter((e) => e.type === 'watchdog.alert_raised')).toHaveLength(1);
    store.down(false);
    // Back: the alert is stored for every machine to see, but the pause it called for is not repeated.
    expect(await alerts.raise(budget)).toBeUndefined();
    expect((await alerts.list(false)).map((a) => a.name)).toEqual(['spender']);
    expect(store.bus.list().filter((e) => e.type === 'watchdog.alert_raised')).toHaveLength(1);
    // Acknowledged, the same key is a new alert again.
    await alerts.acknowledge((await alerts.list(false))[0]!.id);
    expect(await alerts.raise(budget)).toMatchObject({ rule: 'budget' });
  });
});
