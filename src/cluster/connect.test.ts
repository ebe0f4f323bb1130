import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';
import { postgresForFile } from '../../test/support/postgres.js';
import { openClient, openPool, parseStoreUrl } from './connect.js';

const server = postgresForFile();

/** A port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

describe('connecting to the store', () => {
  test('a URL that is not a PostgreSQL URL is refused naming the key it came from, without dialling', () => {
    expect(() => parseStoreUrl('', 'BATON_STORE')).toThrow('BATON_STORE is not a PostgreSQL URL (it is empty)');
    expect(() => parseStoreUrl('db.internal/baton', '--store')).toThrow('--store is not a PostgreSQL URL (it does not parse as a URL)');
    expect(() => parseStoreUrl('mysql://u@db/baton')).toThrow('store is not a PostgreSQL URL (the scheme is mysql, not postgres)');
    expect(() => parseStoreUrl('postgres://u@db.internal')).toThrow('(it names no database)');
    expect(() => parseStoreUrl('postgres://u:secret@db/baton', 'store')).not.toThrow();
    const refused = ((): unknown => {
      try {
        return parseStoreUrl('mysql://u:secret@db/baton', 'store');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toMatchObject({ code: 'invalid_input', data: { key: 'store', value: 'mysql://u:***@db/baton' } });
    expect(String(refused)).not.toContain('secret');
  });

  test('an unreachable server is one clear error naming host, port and database', async () => {
    const port = await closedPort();
    await expect(openPool(`postgres://baton@127.0.0.1:${port}/baton`)).rejects.toMatchObject({
      code: 'store_unreachable',
      message: expect.stringMatching(new RegExp(`^Cannot reach the PostgreSQL store at 127\\.0\\.0\\.1:${port}/baton \\(.*ECONNREFUSED`)) as unknown,
    });
    await expect(openClient(`postgres://baton@127.0.0.1:${port}/baton`, 'test')).rejects.toMatchObject({ code: 'store_unreachable' });
  });

  test('a database that does not exist on a running server is named in the error', async () => {
    const url = server().url.replace(/\/postgres$/, '/no_such_db');
    await expect(openPool(url)).rejects.toThrow(/store at 127\.0\.0\.1:\d+\/no_such_db \(.*database "no_such_db" does not exist/);
  });

  test('a good URL opens a pool that answers', async () => {
    const pool = await openPool(server().url, { applicationName: 'baton-test' });
    const { rows } = await pool.query<{ name: string }>('SELECT current_setting($1) AS name', ['application_name']);
    await pool.end();
    expect(rows[0]?.name).toBe('baton-test');
  });
});
