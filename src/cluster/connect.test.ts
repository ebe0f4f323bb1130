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
    expect(() => parseStoreUrl('', 'BATON_STORE')).toThrow(
      'BATON_STORE is not a PostgreSQL URL (it is empty)',
    );
    expect(() => parseStoreUrl('db.internal/baton', '--store')).toThrow(
      '--store is not a PostgreSQL URL (it does not parse as a URL)',
    );
    expect(() => parseStoreUrl('mysql://u@db/baton')).toThrow(
      'store is not a PostgreSQL URL (the scheme is mysql, not postgres)',
    );
    expect(() => parseStoreUrl('postgres://u@db.internal')).toThrow('(it names no database)');
    expect(() => parseStoreUrl('postgres://u:secret@db/baton', 'store')).not.toThrow();
    const refused = ((): unknown => {
      try {
        return parseStoreUrl('mysql://u:secret@db/baton', 'store');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toMatchObject({
      code: 'invalid_input',
      data: { key: 'store', value: 'mysql://u:***@db/baton' },
    });
    expect(String(refused)).not.toContain('secret');
    const inQuery = ((): unknown => {
      try {
        return parseStoreUrl('mysql:///baton?host=/run/pg&password=secret');
      } catch (error) {
        return error;
      }
    })();
    expect(inQuery).toMatchObject({
      data: { key: 'store', value: 'mysql:///baton?host=/run/pg&password=***' },
    });
  });

  test('a Unix socket URL names its folder as the host, as node-postgres reads it', () => {
    expect(parseStoreUrl('postgres:///baton?host=/run/postgresql&port=6543&user=baton').target).toBe(
      '/run/postgresql:6543/baton',
    );
    expect(parseStoreUrl('postgres://baton@%2Frun%2Fpostgresql/baton').target).toBe(
      '/run/postgresql:5432/baton',
    );
    expect(parseStoreUrl('postgres://u@db.internal:5433/baton?host=/run/pg').target).toBe(
      '/run/pg:5433/baton',
    );
    expect(() => parseStoreUrl('postgres:///baton?user=baton', 'BATON_STORE')).toThrow(
      'BATON_STORE is not a PostgreSQL URL (it names no host)',
    );
    expect(() => parseStoreUrl('postgres://%zz/baton', '--store')).toThrow(
      '--store is not a PostgreSQL URL (%zz is not valid percent-encoding)',
    );
  });

  test('an unreachable server is one clear error naming host, port and database', async () => {
    const port = await closedPort();
    await expect(openPool(`postgres://baton@127.0.0.1:${port}/baton`)).rejects.toMatchObject({
      code: 'store_unreachable',
      message: expect.stringMatching(
        new RegExp(`^Cannot reach the PostgreSQL store at 127\\.0\\.0\\.1:${port}/baton \\(.*ECONNREFUSED`),
      ) as unknown,
    });
    await expect(openClient(`postgres://baton@127.0.0.1:${port}/baton`, 'test')).rejects.toMatchObject({
      code: 'store_unreachable',
    });
  });

  test('a database that does not exist on a running server is named in the error', async () => {
    const { socketDir, port } = server();
    await expect(openPool(server().urlFor('no_such_db'))).rejects.toThrow(
      `store at ${socketDir}:${port}/no_such_db (`,
    );
    await expect(openPool(server().urlFor('no_such_db'))).rejects.toThrow(
      /database "no_such_db" does not exist/,
    );
  });

  test('a Unix socket URL opens a pool that answers, and a listening client too', async () => {
    expect(server().url).toMatch(/^postgres:\/\/\/postgres\?host=/);
    const pool = await openPool(server().url, { applicationName: 'baton-test' });
    const { rows } = await pool.query<{ name: string }>('SELECT current_setting($1) AS name', [
      'application_name',
    ]);
    await pool.end();
    expect(rows[0]?.name).toBe('baton-test');
    const client = await openClient(server().url, 'baton-listener');
    await client.end();
  });
});
