import { createServer } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile, startPostgres } from '../../test/support/postgres.js';
import { until } from '../../test/support/wait.js';
import { joinCluster, type ClusterMember, type JoinOptions } from './runtime.js';

const server = postgresForFile();
const members: ClusterMember[] = [];
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(members.splice(0).map((member) => member.close()));
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

/** A timer driven by hand: `tick()` runs the beat the member scheduled, `stopped` says it was cleared. */
function handTimer(): {
  every: NonNullable<JoinOptions['every']>;
  tick: () => void;
  ms: () => number | undefined;
  stopped: () => boolean;
} {
  let beat: (() => void) | undefined;
  let every: number | undefined;
  let stopped = false;
  return {
    every: (ms, fn) => {
      every = ms;
      beat = fn;
      return () => (stopped = true);
    },
    tick: () => beat?.(),
    ms: () => every,
    stopped: () => stopped,
  };
}

async function join(url: string, options: Partial<JoinOptions> = {}): Promise<ClusterMember> {
  const member = await joinCluster({
    url,
    machine: 'laptop',
    capacity: 4,
    running: () => 0,
    version: '0.1.0',
    ...options,
  });
  members.push(member);
  return member;
}

async function look(url: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pools.push(pool);
  return pool;
}

/** Polls `check` until it holds; the heartbeat lands in another process's tables, which send no event. */

describe('joining a shared workspace', () => {
  test('registers this machine, heartbeats what it runs on its timer, and deregisters on close', async () => {
    const url = await server().database();
    let running = 2;
    const timer = handTimer();
    const member = await join(url, {
      running: () => running,
      every: timer.every,
      timing: { heartbeatMs: 2_000 },
    });
    expect(member).toMatchObject({ machine: 'laptop', store: url });
    expect(timer.ms()).toBe(2_000);
    // Joined with one heartbeat already stored, carrying the machine's load.
    expect(await member.workers()).toMatchObject([
      { name: 'laptop', incarnation: 1, capacity: 4, running: 2, version: '0.1.0', stale: false },
    ]);
    running = 3;
    timer.tick();
    await until(
      async () => (await member.workers())[0]?.running === 3,
      'the timer heartbeat reports 3 running',
    );
    const other = await join(url, { machine: 'build-box', capacity: 16, every: handTimer().every });
    expect((await member.workers()).map((w) => [w.name, w.capacity, w.running])).toEqual([
      ['build-box', 16, 0],
      ['laptop', 4, 3],
    ]);

    await member.close();
    await member.close();
    expect(timer.stopped()).toBe(true);
    expect((await other.workers()).map((w) => w.name)).toEqual(['build-box']);
  });

  test('a real timer heartbeats every heartbeatMs, on the database clock', async () => {
    const url = await server().database();
    let running = 0;
    const member = await join(url, { running: () => running, timing: { heartbeatMs: 50 } });
    const pool = await look(url);
    // Pushed into the past: only a heartbeat brings it back.
    await pool.query("UPDATE workers SET heartbeat_at = now() - interval '1 hour'");
    running = 1;
    await until(async () => {
      const [row] = await member.workers();
      return row !== undefined && !row.stale && row.running === 1 && row.ageSeconds < 5;
    }, 'a timer heartbeat refreshes the worker');
  });

  test('a worker the store forgot registers again as a new incarnation at its next heartbeat', async () => {
    const url = await server().database();
    const rejoined: number[] = [];
    const member = await join(url, {
      every: handTimer().every,
      onRejoin: (n) => rejoined.push(n),
      running: () => 1,
    });
    const pool = await look(url);
    await pool.query("DELETE FROM workers WHERE name = 'laptop'");
    await member.beat();
    expect(member.incarnation()).toBe(1);
    expect(rejoined).toEqual([1]);
    // Registered again by another process of the same name: this one takes the next incarnation.
    await pool.query("UPDATE workers SET incarnation = 7 WHERE name = 'laptop'");
    await member.beat();
    expect(rejoined).toEqual([1, 8]);
    expect(await member.workers()).toMatchObject([{ name: 'laptop', incarnation: 8, running: 1 }]);
  });

  test('heartbeats send what the machine holds and hand it the fence; registered again, it takes back what it holds first', async () => {
    const url = await server().database();
    const member = await join(url, { every: handTimer().every });
    const pool = await look(url);
    const place = (id: string, state: string) =>
      pool.query(
        `INSERT INTO placements (session_id, worker, incarnation, state, target, updated_at) VALUES ($1, 'laptop', 1, $2, 'any', now())`,
        [id, state],
      );
    await place('p1', 'placed');
    // Reaped while this machine was cut off, and respawned elsewhere.
    await place('p2', 'finished');
    const calls: string[] = [];
    member.hold({
      held: () => ['p1', 'p2'],
      rejoined: async (incarnation) => {
        calls.push(`rejoined as ${incarnation}`);
        await pool.query(
          `UPDATE placements SET incarnation = $1 WHERE session_id = 'p1' AND state = 'placed'`,
          [incarnation],
        );
      },
      fenced: (ids) => calls.push(`fenced ${ids.join(' ')}`),
    });
    await member.beat();
    expect(calls).toEqual(['fenced p2']);
    // Two held, none mid-turn: the row still counts them as running.
    expect(await member.workers()).toMatchObject([{ running: 2 }]);
    await pool.query("UPDATE workers SET incarnation = 7 WHERE name = 'laptop'");
    await member.beat();
    expect(calls).toEqual(['fenced p2', 'rejoined as 8', 'fenced p2']);
  });

  test('closing removes only its own incarnation: a supervisor started meanwhile under the name stays', async () => {
    const url = await server().database();
    const stopping = await join(url, { every: handTimer().every });
    const successor = await join(url, { every: handTimer().every, capacity: 8 });
    expect(successor.incarnation()).toBe(2);
    await stopping.close();
    expect(await successor.workers()).toMatchObject([{ name: 'laptop', incarnation: 2, capacity: 8 }]);
  });

  test('a failed heartbeat is reported and the next one tries again', async () => {
    const url = await server().database();
    const failures: string[] = [];
    const timer = handTimer();
    const member = await join(url, {
      every: timer.every,
      onBeatError: (error) => failures.push(String(error)),
    });
    const pool = await look(url);
    await pool.query('ALTER TABLE workers RENAME TO workers_away');
    timer.tick();
    await until(async () => failures.length === 1, 'the failed beat is reported');
    expect(failures[0]).toMatch(/relation "workers" does not exist/);
    await pool.query('ALTER TABLE workers_away RENAME TO workers');
    await member.beat();
    expect(failures).toHaveLength(1);
  });

  test('a store that goes away is named when the workers are asked for, and closing does not hang', async () => {
    const own = await startPostgres();
    try {
      const member = await joinCluster({
        url: await own.database(),
        source: 'BATON_STORE',
        machine: 'laptop',
        capacity: 1,
        running: () => 0,
        version: '1',
        every: handTimer().every,
      });
      await own.stop();
      await expect(member.workers()).rejects.toMatchObject({
        code: 'store_unreachable',
        message: expect.stringContaining(
          `Cannot reach the PostgreSQL store at ${own.socketDir}:${own.port}/`,
        ) as unknown,
        data: { source: 'BATON_STORE' },
      });
      await expect(member.beat()).rejects.toBeDefined();
      await member.close().catch(() => {});
    } finally {
      await own.stop();
    }
  });

  test('an unreachable store or a bad URL fails the join naming where the URL came from, never the password', async () => {
    const port = await closedPort();
    await expect(
      joinCluster({
        url: `postgres://baton:hunter2@127.0.0.1:${port}/baton`,
        source: '--store',
        machine: 'laptop',
        capacity: 1,
        running: () => 0,
        version: '1',
      }),
    ).rejects.toMatchObject({
      code: 'store_unreachable',
      message: expect.stringMatching(
        new RegExp(
          `^Cannot reach the PostgreSQL store at 127\\.0\\.0\\.1:${port}/baton \\(.*ECONNREFUSED.*\\); its URL came from --store\\. Check`,
        ),
      ) as unknown,
      data: { source: '--store' },
    });
    const refused = await joinCluster({
      url: 'mysql://baton:hunter2@db/baton',
      source: 'BATON_STORE',
      machine: 'laptop',
      capacity: 1,
      running: () => 0,
      version: '1',
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'invalid_input', data: { key: 'BATON_STORE' } });
    expect(JSON.stringify(refused) + String(refused)).not.toContain('hunter2');
    // A machine name the registry refuses: nothing is left registered.
    const url = await server().database();
    await expect(
      joinCluster({ url, machine: 'any', capacity: 1, running: () => 0, version: '1' }),
    ).rejects.toMatchObject({ code: 'invalid_input', data: { key: 'name' } });
    const pool = await look(url);
    expect((await pool.query('SELECT name FROM workers')).rows).toEqual([]);
  });
});

/** A port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
