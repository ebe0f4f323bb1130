import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { BUS_CHANNEL, PgWorkspaceLog, type LoggedEvent } from './bus.js';
import { Listener } from './listener.js';

const { database, cleanups, server } = clusterDatabases();

/** One "process": its own pool and its own LISTEN connection. */
async function machine(
  url: string,
  clock?: () => Date,
): Promise<{ log: PgWorkspaceLog; listener: Listener; pool: pg.Pool }> {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const listener = new Listener(url, [BUS_CHANNEL], { firstMs: 20, maxMs: 200 });
  cleanups.push(
    () => pool.end(),
    () => listener.close(),
  );
  return { log: new PgWorkspaceLog(pool, listener, clock), listener, pool };
}

const ref = (i: number): { sessionId: string; name: string; project: string } => ({
  sessionId: `s${i}`,
  name: `w${i}`,
  project: 'repo',
});

/** Collects a follower's events; `done` resolves at `count` of them, or fails naming what it saw. */
function collector(
  count: number,
  timeoutMs = 30_000,
): { seen: LoggedEvent[]; done: Promise<void>; onEvent: (event: LoggedEvent) => void } {
  const seen: LoggedEvent[] = [];
  let resolve!: () => void;
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((ok, fail) => {
    resolve = ok;
    timer = setTimeout(
      () =>
        fail(
          new Error(
            `the follower saw ${seen.length} of ${count} events (last seq ${seen.at(-1)?.seq ?? 'none'})`,
          ),
        ),
      timeoutMs,
    );
  }).finally(() => clearTimeout(timer));
  return {
    seen,
    done,
    onEvent: (event) => {
      seen.push(event);
      if (seen.length === count) resolve();
    },
  };
}

describe('PgWorkspaceLog', () => {
  test('stores a validated event with its seq and the injected clock, and lists it back', async () => {
    const at = new Date('2026-03-04T05:06:07.000Z');
    const { log } = await machine(await database(), () => at);
    const stored = await log.append('session.pinned', { ...ref(1), pinned: true });
    expect(stored).toEqual({
      seq: 1,
      ts: at.toISOString(),
      type: 'session.pinned',
      data: { ...ref(1), pinned: true },
    });
    expect(await log.list(0)).toEqual([stored]);
  });

  test('an unknown type or bad data is refused naming the bad key, and nothing is stored', async () => {
    const { log } = await machine(await database());
    await expect(log.append('session.teleported', {})).rejects.toThrow(
      'Unknown workspace event type "session.teleported".',
    );
    await expect(log.append('session.pinned', { ...ref(1), pinned: 'yes' })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'data.pinned', type: 'session.pinned' },
    });
    expect(await log.list(0)).toEqual([]);
  });

  test('appendMany stores several events in the order given in one transaction, all or none, and wakes a follower', async () => {
    const url = await database();
    const { log } = await machine(url);
    const { log: other } = await machine(url);
    const { seen, done, onEvent } = collector(3);
    const follow = await other.follow(0, onEvent);
    cleanups.push(() => follow.close());
    const stored = await log.appendMany(
      [0, 1, 2].map((i) => ({ type: 'session.pinned', data: { ...ref(i), pinned: true } })),
    );
    expect(stored.map((e) => [e.seq, (e.data as { name: string }).name])).toEqual([
      [1, 'w0'],
      [2, 'w1'],
      [3, 'w2'],
    ]);
    await done;
    expect(seen.map((e) => e.seq)).toEqual([1, 2, 3]);
    // jsonb refuses \u0000: the whole batch is refused, nothing of it stored.
    await expect(
      log.appendMany([
        { type: 'session.pinned', data: { ...ref(3), pinned: true } },
        { type: 'session.pinned', data: { ...ref(4), name: 'nul \u0000', pinned: true } },
      ]),
    ).rejects.toThrow();
    await expect(
      log.appendMany([{ type: 'session.pinned', data: { ...ref(5), pinned: 'no' } }]),
    ).rejects.toMatchObject({ data: { key: 'data.pinned' } });
    expect((await log.list(0)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  test('3 publishers × 500 events reach 2 followers each exactly once, in seq order', async () => {
    const url = await database();
    const publishers = await Promise.all([1, 2, 3].map(() => machine(url)));
    const followers = await Promise.all([1, 2].map(() => machine(url)));
    const total = 1_500;
    const collected = [collector(total), collector(total)];
    for (const [i, { log }] of followers.entries()) {
      const follow = await log.follow(0, collected[i]!.onEvent);
      cleanups.push(() => follow.close());
    }
    await Promise.all(
      publishers.map(async ({ log }, p) => {
        for (let i = 0; i < 500; i++)
          await log.append('session.pinned', { ...ref(p * 1000 + i), pinned: i % 2 === 0 });
      }),
    );
    await Promise.all(collected.map((c) => c.done));
    const stored = (await publishers[0]!.log.list(0, 10_000)).map((e) => e.seq);
    expect(stored).toHaveLength(total);
    for (const { seen } of collected) {
      expect(seen.map((e) => e.seq)).toEqual(stored);
      expect(new Set(seen.map((e) => (e.data as { sessionId: string }).sessionId)).size).toBe(total);
    }
  });

  test('a follower whose LISTEN connection is killed reconnects and catches up without a gap or a duplicate', async () => {
    const url = await database();
    const name = new URL(url).pathname.slice(1);
    const publisher = await machine(url);
    const follower = await machine(url);
    const admin = new pg.Client(server().url);
    await admin.connect();
    cleanups.push(() => admin.end());
    const total = 300;
    const { seen, done, onEvent } = collector(total);
    let connects = 0;
    let redialled!: () => void;
    const reconnected = new Promise<void>((resolve) => (redialled = resolve));
    follower.listener.on('connected', () => {
      if (++connects === 2) redialled();
    });
    const follow = await follower.log.follow(0, onEvent);
    cleanups.push(() => follow.close());
    for (let i = 0; i < 100; i++) await publisher.log.append('session.pinned', { ...ref(i), pinned: true });
    // Keep the follower from redialling while events are published: only the catch-up on
    // reconnect can deliver them, since no notification reaches a connection that is down.
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    const pid = await follower.listener.backendPid();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 100; i < total; i++)
      await publisher.log.append('session.pinned', { ...ref(i), pinned: true });
    expect(connects).toBe(1);
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await reconnected;
    await done;
    expect(await follower.listener.backendPid()).not.toBe(pid);
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  test('following from a seq replays only what came after it, then goes live', async () => {
    const url = await database();
    const { log } = await machine(url);
    for (let i = 0; i < 5; i++) await log.append('session.pinned', { ...ref(i), pinned: true });
    const { seen, done, onEvent } = collector(4);
    const follow = await log.follow(3, onEvent);
    cleanups.push(() => follow.close());
    await log.append('session.pinned', { ...ref(9), pinned: false });
    await log.append('session.pinned', { ...ref(10), pinned: false });
    await done;
    expect(seen.map((e) => e.seq)).toEqual([4, 5, 6, 7]);
  });

  test('a failing read waits out its backoff however many notifications arrive, then catches up', async () => {
    const url = await database();
    const { log, pool, listener } = await machine(url);
    const publisher = await machine(url);
    await publisher.log.append('session.pinned', { ...ref(1), pinned: true });
    // Reads fail while the table is away; count them, and learn when the first has failed.
    await pool.query('ALTER TABLE workspace_events RENAME TO workspace_events_away');
    const read = log.list.bind(log);
    let reads = 0;
    let inFlight: Promise<unknown> = Promise.resolve();
    let firstFailed!: () => void;
    const failed = new Promise<void>((resolve) => (firstFailed = resolve));
    log.list = (...args) => {
      reads++;
      const reading = read(...args).catch((error: unknown) => {
        firstFailed();
        throw error;
      });
      inFlight = reading.catch(() => {});
      return reading;
    };
    const { seen, done, onEvent } = collector(2);
    const follow = await log.follow(0, onEvent);
    cleanups.push(() => follow.close());
    await failed;
    let heard!: () => void;
    listener.on('notification', (_channel, payload) => payload === 'wake' && heard());
    const since = performance.now();
    // 40 wake-ups, each heard (and any read it started finished) before the next; each used to
    // start a read at once. Backing off (50, 100, 200 … ms) allows only one read per doubling of
    // the time elapsed, plus the first and one in flight.
    for (let i = 0; i < 40; i++) {
      const hearing = new Promise<void>((resolve) => (heard = resolve));
      await publisher.pool.query("SELECT pg_notify($1, 'wake')", [BUS_CHANNEL]);
      await hearing;
      await inFlight;
    }
    const elapsed = performance.now() - since;
    expect(reads).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(elapsed / 50 + 1)));
    await pool.query('ALTER TABLE workspace_events_away RENAME TO workspace_events');
    await publisher.log.append('session.pinned', { ...ref(2), pinned: true });
    await done;
    expect(seen.map((e) => e.seq)).toEqual([1, 2]);
  });

  test('a follow whose listener cannot start leaves no handler behind', async () => {
    const url = await database();
    const name = new URL(url).pathname.slice(1);
    const admin = new pg.Client(server().url);
    await admin.connect();
    cleanups.push(() => admin.end());
    const { log, listener } = await machine(url);
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await expect(log.follow(0, () => {})).rejects.toMatchObject({ code: 'store_unreachable' });
    expect([listener.listenerCount('notification'), listener.listenerCount('connected')]).toEqual([0, 0]);
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
  });
});
