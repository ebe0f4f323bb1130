import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { Listener } from './listener.js';
import { DISPATCH_CHANNEL, Placement, type Claimer } from './placement.js';
import { WorkerRegistry } from './workers.js';

const { database, cleanups } = clusterDatabases();

/** One "machine": its pool, its LISTEN connection and its pg-boss. */
async function machine(url: string): Promise<{ pool: pg.Pool; listener: Listener; placement: Placement }> {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const listener = new Listener(url, [DISPATCH_CHANNEL]);
  await listener.start();
  const placement = await Placement.start({ url, pool });
  cleanups.push(
    () => pool.end(),
    () => listener.close(),
    () => placement.stop(),
  );
  return { pool, listener, placement };
}

/** Moves a worker's last heartbeat `ms` into the past (on the database's clock). */
async function age(pool: pg.Pool, name: string, ms: number): Promise<void> {
  await pool.query(
    'UPDATE workers SET heartbeat_at = now() - make_interval(secs => $2::double precision / 1000) WHERE name = $1',
    [name, ms],
  );
}

/** A claimer whose placements can be awaited one by one. */
function claimerOn(
  m: Awaited<ReturnType<typeof machine>>,
  worker: string,
  capacity: number,
  incarnation = 1,
): { claimer: Claimer; next: () => Promise<string> } {
  const placed: string[] = [];
  const waiting: ((id: string) => void)[] = [];
  // A long poll: only a NOTIFY (or an explicit claim) may wake it within a test.
  const claimer = m.placement.claimer({
    worker,
    incarnation,
    capacity,
    listener: m.listener,
    pollMs: 600_000,
    onPlaced: (id) => {
      const waiter = waiting.shift();
      if (waiter === undefined) placed.push(id);
      else waiter(id);
    },
  });
  cleanups.push(() => claimer.close());
  return {
    claimer,
    next: () =>
      placed.length > 0 ? Promise.resolve(placed.shift()!) : new Promise((resolve) => waiting.push(resolve)),
  };
}

describe('placement through pg-boss', () => {
  test('a dispatch lands on the worker with a free slot, not on the full one, woken by NOTIFY', async () => {
    const url = await database();
    const [a, b] = await Promise.all([machine(url), machine(url)]);
    const onA = claimerOn(a, 'machine-a', 1);
    await a.placement.dispatch({ sessionId: 's1', on: 'machine-a' });
    expect(await onA.next()).toBe('s1');
    expect(onA.claimer.free).toBe(0);

    const onB = claimerOn(b, 'machine-b', 1);
    await a.placement.dispatch({ sessionId: 's2' });
    expect(await onB.next()).toBe('s2');
    expect(await a.placement.placementOf('s2')).toEqual({
      worker: 'machine-b',
      state: 'placed',
      reason: null,
    });
    expect([...onA.claimer.running]).toEqual(['s1']);

    // A freed slot claims the next dispatch.
    await onA.claimer.release('s1');
    expect(await a.placement.placementOf('s1')).toMatchObject({ state: 'finished' });
    await b.placement.dispatch({ sessionId: 's3' });
    expect(await onA.next()).toBe('s3');
  });

  test('a claimer whose free slots are counted elsewhere claims only while that count has room', async () => {
    const url = await database();
    const a = await machine(url);
    let free = 0;
    const placed: string[] = [];
    const claimer = a.placement.claimer({
      worker: 'machine-a',
      incarnation: 1,
      capacity: 4,
      free: () => free,
      listener: a.listener,
      pollMs: 600_000,
      onPlaced: (id) => {
        placed.push(id);
        free--;
      },
    });
    cleanups.push(() => claimer.close());
    await a.placement.dispatch({ sessionId: 's1' });
    await a.placement.dispatch({ sessionId: 's2' });
    // Four slots by capacity, none by the count: nothing is claimed.
    expect(claimer.free).toBe(0);
    expect(await claimer.claim()).toBe(0);
    // One slot: one claim, and the count (which now sees it) stops the next.
    free = 1;
    expect(await claimer.claim()).toBe(1);
    expect(placed).toEqual(['s1']);
    expect(await a.placement.placementOf('s2')).toMatchObject({ state: 'queued' });
  });

  test('a restarted worker takes back only the placements it still holds', async () => {
    const url = await database();
    const a = await machine(url);
    const onA = claimerOn(a, 'machine-a', 2);
    await a.placement.dispatch({ sessionId: 'kept' });
    expect(await onA.next()).toBe('kept');
    await a.placement.dispatch({ sessionId: 'done' });
    expect(await onA.next()).toBe('done');
    await onA.claimer.release('done');
    expect(await a.placement.adopt(['kept', 'done', 'unknown'], 'machine-a', 2)).toEqual(['kept']);
    expect(await a.placement.adopt(['kept'], 'machine-b', 3)).toEqual([]);
    const { rows } = await a.pool.query<{ incarnation: string }>(
      "SELECT incarnation FROM placements WHERE session_id = 'kept'",
    );
    expect(rows[0]?.incarnation).toBe('2');
  });

  test('a job for machine B is not taken by A; B takes it when it comes up', async () => {
    const url = await database();
    const [a, b] = await Promise.all([machine(url), machine(url)]);
    const onA = claimerOn(a, 'machine-a', 4);
    await a.placement.dispatch({ sessionId: 'for-b', on: 'machine-b' });
    expect(await onA.claimer.claim()).toBe(0);
    expect(await a.placement.placementOf('for-b')).toEqual({ worker: null, state: 'queued', reason: null });
    // A does take work for any machine.
    await a.placement.dispatch({ sessionId: 'anywhere' });
    expect(await onA.next()).toBe('anywhere');

    const onB = claimerOn(b, 'machine-b', 1);
    expect(await onB.next()).toBe('for-b');
    expect([...onA.claimer.running]).toEqual(['anywhere']);
  });

  test('a session already queued or placed is not queued twice', async () => {
    const url = await database();
    const a = await machine(url);
    expect(await a.placement.dispatch({ sessionId: 's1', on: 'nobody' })).toEqual({
      sessionId: 's1',
      queue: 'baton.dispatch.nobody',
      queued: true,
    });
    expect(await a.placement.dispatch({ sessionId: 's1' })).toEqual({
      sessionId: 's1',
      queue: 'baton.dispatch',
      queued: false,
    });
    const { rows } = await a.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM pgboss.job WHERE singleton_key = 's1'",
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });

  test('a worker whose heartbeats stop is reaped once when two reapers race, and its session can be respawned', async () => {
    const url = await database();
    const [a, b] = await Promise.all([machine(url), machine(url)]);
    const registry = new WorkerRegistry(a.pool, { heartbeatMs: 1_000, missedBeats: 3 });
    const machineA = await registry.register({ name: 'machine-a', capacity: 1, version: '0.1.0' });
    const machineB = await registry.register({ name: 'machine-b', capacity: 1, version: '0.1.0' });
    const onA = claimerOn(a, 'machine-a', 1, machineA.incarnation);
    await a.placement.dispatch({ sessionId: 'doomed' });
    expect(await onA.next()).toBe('doomed');
    await onA.claimer.close();

    // B keeps heartbeating; A stops. Just under three missed beats is not yet stale; past them it is.
    await age(a.pool, 'machine-a', 2_900);
    await registry.heartbeat({ name: 'machine-b', incarnation: machineB.incarnation, sessions: [] });
    expect(await a.placement.reap(registry)).toEqual([]);
    await age(a.pool, 'machine-a', 3_100);
    expect((await registry.list()).map((w) => [w.name, w.stale])).toEqual([
      ['machine-a', true],
      ['machine-b', false],
    ]);
    const { rows } = await a.pool.query<{ last: Date }>(
      "SELECT heartbeat_at AS last FROM workers WHERE name = 'machine-a'",
    );

    const secondRegistry = new WorkerRegistry(b.pool, registry.timing);
    const [first, second] = await Promise.all([a.placement.reap(registry), b.placement.reap(secondRegistry)]);
    const reaped = [...first, ...second];
    expect(reaped).toEqual([
      {
        sessionId: 'doomed',
        worker: 'machine-a',
        on: 'any',
        reason: `worker machine-a stopped heartbeating (3 missed heartbeats, last at ${rows[0]!.last.toISOString()})`,
      },
    ]);
    expect(await a.placement.placementOf('doomed')).toEqual({
      worker: 'machine-a',
      state: 'failed',
      reason: reaped[0]!.reason,
    });
    expect(await a.placement.reap(registry)).toEqual([]);

    // A comes back to life: its heartbeat succeeds but fences the session it no longer holds.
    expect(
      await registry.heartbeat({
        name: 'machine-a',
        incarnation: machineA.incarnation,
        sessions: ['doomed'],
      }),
    ).toEqual({ fenced: ['doomed'] });

    // Respawn: dispatched again, B (alive, free) takes it; A's heartbeat still fences it.
    const onB = claimerOn(b, 'machine-b', 1, machineB.incarnation);
    expect(await b.placement.dispatch({ sessionId: 'doomed', on: reaped[0]!.on })).toMatchObject({
      queued: true,
    });
    expect(await onB.next()).toBe('doomed');
    expect(
      await registry.heartbeat({
        name: 'machine-a',
        incarnation: machineA.incarnation,
        sessions: ['doomed'],
      }),
    ).toEqual({ fenced: ['doomed'] });
    expect(
      await registry.heartbeat({
        name: 'machine-b',
        incarnation: machineB.incarnation,
        sessions: ['doomed'],
      }),
    ).toEqual({ fenced: [] });
  });

  test('a worker that registers again is a new incarnation: what the old one held is fenced and reaped at once', async () => {
    const url = await database();
    const a = await machine(url);
    const registry = new WorkerRegistry(a.pool, { heartbeatMs: 60_000, missedBeats: 3 });
    const before = await registry.register({ name: 'machine-a', capacity: 1, version: '0.1.0' });
    const onA = claimerOn(a, 'machine-a', 1, before.incarnation);
    await a.placement.dispatch({ sessionId: 's1' });
    expect(await onA.next()).toBe('s1');
    await onA.claimer.close();

    const after = await registry.register({ name: 'machine-a', capacity: 1, version: '0.1.0' });
    expect(after.incarnation).toBe(before.incarnation + 1);
    expect(
      await registry.heartbeat({ name: 'machine-a', incarnation: after.incarnation, sessions: ['s1'] }),
    ).toEqual({ fenced: ['s1'] });
    await expect(
      registry.heartbeat({ name: 'machine-a', incarnation: before.incarnation, sessions: ['s1'] }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await a.placement.reap(registry)).toEqual([
      {
        sessionId: 's1',
        worker: 'machine-a',
        on: 'any',
        reason: `worker machine-a restarted (incarnation ${before.incarnation} is gone)`,
      },
    ]);
  });

  test('a dispatch whose job cannot be sent leaves nothing queued, and dispatching again places it', async () => {
    const url = await database();
    const a = await machine(url);
    // The first job insert fails (a sequence is not rolled back, so only the first call sees 1).
    await a.pool.query(`
      CREATE SEQUENCE fail_once;
      CREATE FUNCTION fail_first_job() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF nextval('fail_once') = 1 THEN RAISE EXCEPTION 'the job table is unavailable'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER fail_first_job BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION fail_first_job();`);
    await expect(a.placement.dispatch({ sessionId: 's1' })).rejects.toThrow('the job table is unavailable');
    expect(await a.placement.placementOf('s1')).toBeUndefined();

    const onA = claimerOn(a, 'machine-a', 1);
    expect(await a.placement.dispatch({ sessionId: 's1' })).toMatchObject({ queued: true });
    expect(await onA.next()).toBe('s1');
  });

  test('bad dispatch input is refused naming the bad key', async () => {
    const a = await machine(await database());
    await expect(a.placement.dispatch({ sessionId: '' })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'sessionId' },
    });
    await expect(a.placement.dispatch({ sessionId: 's1', on: 'not a machine!' })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'on' },
    });
    await expect(a.placement.dispatch({ sessionId: 's1', on: 42 })).rejects.toThrow(
      /^on must be a machine name/,
    );
  });
});
