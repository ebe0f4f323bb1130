/** The SQLite store: WAL, numbered migrations applied in order inside one transaction each. */
import Database from 'better-sqlite3';
import { sql as m001 } from './migrations/001_initial.js';
import { sql as m002 } from './migrations/002_dangerous_mode_acceptances.js';
import { sql as m003 } from './migrations/003_workspace_events.js';
import { sql as m004 } from './migrations/004_pending_dispatches.js';
import { sql as m005 } from './migrations/005_review_files.js';
import { sql as m006 } from './migrations/006_port_leases.js';
import { sql as m007 } from './migrations/007_tasks.js';
import { sql as m008 } from './migrations/008_allow_rules.js';
import { sql as m009 } from './migrations/009_alerts_budgets.js';
import { sql as m010 } from './migrations/010_search.js';
import { sql as m011 } from './migrations/011_attempts.js';
import { sql as m012 } from './migrations/012_routines.js';
import { sql as m013 } from './migrations/013_relayed_events.js';
import { sql as m014 } from './migrations/014_task_outbox.js';
import { sql as m015 } from './migrations/015_merge_journal.js';
import { sql as m016 } from './migrations/016_evidence.js';
import { sql as m017 } from './migrations/017_memory_footprints.js';
import { sql as m018 } from './migrations/018_record_pending.js';

export type Db = Database.Database;

const MIGRATIONS: readonly string[] = [
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
  m012,
  m013,
  m014,
  m015,
  m016,
  m017,
  m018,
];

export function openDb(path: string): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  MIGRATIONS.forEach((sql, index) => {
    const version = index + 1;
    if (version <= current) return;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    })();
  });
}
