/**
 * The cluster's tables in PostgreSQL. Migrations are numbered, applied in order under a
 * session-level advisory lock (so two machines starting at once apply each exactly once), and
 * recorded in `baton_schema`.
 */
import type pg from 'pg';
import * as m001 from './migrations/001_events_workers_placements.js';
import * as m002 from './migrations/002_worker_incarnations.js';
import * as m003 from './migrations/003_session_mirror_commands.js';
import * as m004 from './migrations/004_dispatches.js';
import * as m005 from './migrations/005_settings.js';
import * as m006 from './migrations/006_spend.js';
import * as m007 from './migrations/007_alerts.js';
import * as m008 from './migrations/008_relayed_events.js';
import * as m009 from './migrations/009_events_by_time.js';
import * as m010 from './migrations/010_tasks.js';
import * as m011 from './migrations/011_routine_fires.js';

/** Advisory lock keys: one per purpose, so they never collide. */
export const LOCKS = { migrate: 20_001, bus: 20_002, tasks: 20_003 } as const;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * In order, one file each under migrations/ (as the SQLite store keeps its own): a version is
 * its place in this list, and an applied one is never edited — a change is a new file.
 */
export const MIGRATIONS: readonly Migration[] = [
  m001,
  m002,
  m003,
  m004,
  m005,
  m006,
  m007,
  m008,
  m009,
  m010,
  m011,
].map((m, index) => ({ version: index + 1, name: m.name, sql: m.sql }));

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function migrate(
  pool: pg.Pool,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCKS.migrate]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS baton_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ version: number }>('SELECT version FROM baton_schema');
      const applied = new Set(rows.map((row) => row.version));
      const done: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO baton_schema (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(
            `migration ${migration.version} (${migration.name}) failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        done.push(migration.version);
      }
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCKS.migrate]);
    }
  } finally {
    client.release();
  }
}
