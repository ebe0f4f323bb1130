import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile } from '../../test/support/postgres.js';
import { until } from '../../test/support/wait.js';
import { Listener } from './listener.js';

const server = postgresForFile();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function admin(): Promise<pg.Client> {
  const client = new pg.Client(server().url);
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

function listener(url: string, channels: readonly string[], backoff = { firstMs: 20, maxMs: 400 }): Listener {
  const made = new Listener(url, channels, backoff);
  cleanups.push(() => made.close());
  return made;
}

/** The LISTEN connections open on `database` right now. */
async function listenerBackends(client: pg.Client, database: string): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'baton-listener'",
    [database],
  );
  return rows.map((row) => row.pid);
}

describe('the LISTEN connection', () => {
  test('closed while its LISTENs are in flight, it keeps no connection', async () => {
    const url = await server().database();
    const name = new URL(url).pathname.slice(1);
    const db = await admin();
    // Many channels: LISTEN takes hundreds of round trips, so close() lands while they run.
    const channels = Array.from({ length: 2_000 }, (_, i) => `channel_${i}`);
    const subject = listener(url, channels);
    const started = subject.start();
    await until(async () => (await listenerBackends(db, name)).length > 0, 'the listener connects');
    await subject.close();
    await started;
    expect(subject.connected).toBe(false);
    await until(async () => (await listenerBackends(db, name)).length === 0, 'its connection is gone');
  });

  test('a server that accepts and then drops it at once is redialled ever more slowly', async () => {
    const url = await server().database();
    const db = await admin();
    const subject = listener(url, ['baton_bus'], { firstMs: 20, maxMs: 400 });
    const connectedAt: number[] = [];
    let dropped = 0;
    const enough = new Promise<void>((resolve) => {
      subject.on('connected', () => {
        connectedAt.push(performance.now());
        if (connectedAt.length === 6) {
          resolve();
          return;
        }
        // Drop each connection as soon as it is up.
        void subject
          .backendPid()
          .then((pid) => db.query('SELECT pg_terminate_backend($1)', [pid]))
          .then(() => dropped++);
      });
    });
    await subject.start();
    await enough;
    expect(dropped).toBe(5);
    // Backoff 20, 40, 80, 160, 320 ms: the last wait alone is at least 320 ms; with the backoff
    // reset on every connect each would be 20 ms.
    const gaps = connectedAt.slice(1).map((at, i) => at - connectedAt[i]!);
    expect(gaps.at(-1)).toBeGreaterThanOrEqual(320);
  });

  test('a first attempt that fails is tried again by the next start', async () => {
    const url = await server().database();
    const name = new URL(url).pathname.slice(1);
    const db = await admin();
    await db.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    const subject = listener(url, ['baton_bus']);
    await expect(subject.start()).rejects.toMatchObject({ code: 'store_unreachable' });
    await db.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await subject.start();
    expect(subject.connected).toBe(true);
  });
});
