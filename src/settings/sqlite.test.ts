import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { settingsStoreSuite } from '../../test/support/settings-suite.js';
import { openDb, type Db } from '../store/db.js';
import { sqliteSettings } from './index.js';

const opened: { dir: string; dbs: Db[] }[] = [];
afterEach(() => {
  for (const { dir, dbs } of opened.splice(0)) {
    for (const db of dbs) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

settingsStoreSuite('SQLite', {
  open: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-settings-db-'));
    const dbs = [openDb(join(dir, 'baton.db')), openDb(join(dir, 'baton.db'))];
    opened.push({ dir, dbs });
    return { a: sqliteSettings(dbs[0]!), b: sqliteSettings(dbs[1]!) };
  },
});
