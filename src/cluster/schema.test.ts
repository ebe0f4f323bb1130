import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile } from '../../test/support/postgres.js';
import { migrate, MIGRATIONS } from './schema.js';

const server = postgresForFile();
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

async function pool(url: string): Promise<pg.Pool> {
  const opened = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(opened);
  return opened;
}

describe('cluster schema migrations', () => {
  test('apply once, and a second run applies nothing', async () => {
    const db = await pool(await server().database());
    expect(await migrate(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await migrate(db)).toEqual([]);
    const { rows } = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      'alerts',
      'allow_rules',
      'baton_schema',
      'budgets',
      'cluster_commands',
      'cluster_dispatches',
      'cluster_task_deps',
      'cluster_tasks',
      'placements',
      'routine_fires',
      'spend_minutes',
      'workers',
      'workspace_events',
    ]);
  });

  test('four machines migrating at once apply each migration exactly once', async () => {
    const url = await server().database();
    const dbs = await Promise.all([1, 2, 3, 4].map(() => pool(url)));
    const applied = await Promise.all(dbs.map((db) => migrate(db)));
    expect(applied.flat().sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
    const { rows } = await dbs[0]!.query<{ n: string }>('SELECT count(*) AS n FROM baton_schema');
    expect(Number(rows[0]!.n)).toBe(MIGRATIONS.length);
  });

  test('a failing migration is rolled back, named, and leaves nothing behind', async () => {
    const db = await pool(await server().database());
    const broken = [
      ...MIGRATIONS,
      { version: 99, name: 'broken', sql: 'CREATE TABLE half (id int); SELECT no_such_function()' },
    ];
    await expect(migrate(db, broken)).rejects.toThrow(
      /migration 99 \(broken\) failed: function no_such_function\(\) does not exist/,
    );
    const { rows } = await db.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'half'");
    expect(rows).toEqual([]);
    expect(await migrate(db)).toEqual([]);
  });
});
