import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { MIGRATIONS } from './schema.js';

// Decision 211: one file per PostgreSQL migration, numbered as its version, listed in schema.ts.
const folder = join(import.meta.dirname, 'migrations');
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
  .sort();

describe('the shared store’s migrations as numbered files', () => {
  test('every file is listed, in order, its number its version, none twice', () => {
    expect(files.map((name) => Number(name.slice(0, 3)))).toEqual(MIGRATIONS.map((m) => m.version));
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
    expect(files.every((name) => /^\d{3}_[a-z0-9_]+\.ts$/.test(name))).toBe(true);
  });

  test('each file is the migration of its place: its name and its SQL', () => {
    files.forEach((name, index) => {
      const text = readFileSync(join(folder, name), 'utf8');
      const migration = MIGRATIONS[index]!;
      expect(migration.sql.trim().length).toBeGreaterThan(0);
      expect(text).toContain(migration.sql.trim());
      expect(text).toContain(JSON.stringify(migration.name).slice(1, -1).replace(/\\"/g, '"'));
    });
  });
});
