import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { startPostgres } from './postgres.js';

describe('the test PostgreSQL', () => {
  test('two servers start from one template on their own ports, each takes queries, and stop removes them', async () => {
    const [a, b] = await Promise.all([startPostgres(), startPostgres()]);
    try {
      expect(a.port).not.toBe(b.port);
      for (const server of [a, b]) {
        const client = new pg.Client(await server.database('probe'));
        await client.connect();
        const { rows } = await client.query<{ version: string; db: string }>('SELECT version(), current_database() AS db');
        await client.end();
        expect(rows[0]?.db).toBe('probe');
        expect(rows[0]?.version).toMatch(/^PostgreSQL \d+/);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(existsSync(a.dir)).toBe(false);
    const client = new pg.Client({ connectionString: a.url, connectionTimeoutMillis: 2000 });
    await expect(client.connect()).rejects.toThrow(/ECONNREFUSED/);
    await a.stop(); // twice is fine
  });
});
