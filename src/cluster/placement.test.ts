import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile } from '../../test/support/postgres.js';
import { Listener } from './listener.js';
import { DISPATCH_CHANNEL, Placement, type Claimer } from './placement.js';
import { migrate } from './schema.js';
import { WorkerRegistry } from './workers.js';

const server = postgresForFile();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A clock the test moves by hand. */
function manualClock(start = '2026-05-01T10:00:00.000Z'): { now: () => Date; advance: (ms: number) => void } {
  let at = new Date(start).getTime();
  return { now: () => new Date(at), advance: (ms) => (at += ms) };
}

async function database(): Promise<string> {
  const url = await server().database();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await migrate(pool);
  await pool.end();
  return url;
}

/** One "machine": its pool, its LISTEN connection and its pg-boss. */
async function machine(url: string, clock?: () => Date): Promise<{ pool: pg.Pool; listener: Listener; placement: Placement }> {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const listener = new Listener(url, [DISPATCH_CHANNEL]);
  await listener.start();
  const placement = await Placement.start({ url, pool, clock });
  cleanups.push(() => pool.end(), () => listener.close(), () => placement.stop());
  return { pool, listener, placement };
}

/** A claimer whose placements can be awaited one by one. */
function claimerOn(m: Awaited<ReturnType<typeof machine>>, worker: string, capacity: number): { claimer: Claimer; next: () => Promise<string> } {
  const placed: string[] = [];
  const waiting: ((id: string) => void)[] = [];
  // A long poll: only a NOTIFY (or an explicit claim) may wake it within a test.
  const claimer = m.placement.claimer({
    worker,
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
  return { claimer, next: () => (placed.length > 0 ? Promise.resolve(placed.shift()!) : new Promise((resolve) => waiting.push(resolve))) };
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
    expect(await a.placement.placementOf('s2')).toEqual({ worker: 'machine-b', state: 'placed', reason: null });
    expect([...onA.claimer.running]).toEqual(['s1']);

    // A freed slot claims the next dispatch.
    await onA.claimer.release('s1');
    expect(await a.placement.placementOf('s1')).toMatchObject({ state: 'finished' });
    await b.placement.dispatch({ sessionId: 's3' });
    expect(await onA.next()).toBe('s3');
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
    expect(await a.placement.dispatch({ sessionId: 's1', on: 'nobody' })).toEqual({ sessionId: 's1', queue: 'baton.dispatch.nobody', queued: true });
    expect(await a.placement.dispatch({ sessionId: 's1' })).toEqual({ sessionId: 's1', queue: 'baton.dispatch', queued: false });
    const { rows } = await a.pool.query<{ n: string }>("SELECT count(*) AS n FROM pgboss.job WHERE singleton_key = 's1'");
    expect(Number(rows[0]!.n)).toBe(1);
  });

  test('a worker whose heartbeats stop is reaped once when two reapers race, and its session can be respawned', async () => {
    const url = await database();
    const clock = manualClock();
    const [a, b] = await Promise.all([machine(url, clock.now), machine(url, clock.now)]);
    const registry = new WorkerRegistry(a.pool, clock.now, { heartbeatMs: 1_000, missedBeats: 3 });
    await registry.register({ name: 'machine-a', capacity: 1, version: '0.1.0' });
    await registry.register({ name: 'machine-b', capacity: 1, version: '0.1.0' });
    const onA = claimerOn(a, 'machine-a', 1);
    await a.placement.dispatch({ sessionId: 'doomed' });
    expect(await onA.next()).toBe('doomed');
    await onA.claimer.close();

    // B keeps heartbeating; A stops. Three missed beats are not yet stale; past them it is.
    for (let beat = 1; beat <= 3; beat++) {
      clock.advance(1_000);
      await registry.heartbeat('machine-b', 0);
    }
    expect(await a.placement.reap(registry)).toEqual([]);
    clock.advance(1);
    await registry.heartbeat('machine-b', 0);
    expect((await registry.list()).map((w) => [w.name, w.stale])).toEqual([['machine-a', true], ['machine-b', false]]);

    const secondRegistry = new WorkerRegistry(b.pool, clock.now, registry.timing);
    const [first, second] = await Promise.all([a.placement.reap(registry), b.placement.reap(secondRegistry)]);
    const reaped = [...first, ...second];
    expect(reaped).toEqual([
      { sessionId: 'doomed', worker: 'machine-a', on: 'any', reason: 'worker machine-a stopped heartbeating (3 missed heartbeats, last at 2026-05-01T10:00:00.000Z)' },
    ]);
    expect(await a.placement.placementOf('doomed')).toEqual({ worker: 'machine-a', state: 'failed', reason: reaped[0]!.reason });
    expect(await a.placement.reap(registry)).toEqual([]);

    // Respawn: dispatched again, B (alive, free) takes it.
    const onB = claimerOn(b, 'machine-b', 1);
    expect(await b.placement.dispatch({ sessionId: 'doomed', on: reaped[0]!.on })).toMatchObject({ queued: true });
    expect(await onB.next()).toBe('doomed');
  });

  test('bad dispatch input is refused naming the bad key', async () => {
    const a = await machine(await database());
    await expect(a.placement.dispatch({ sessionId: '' })).rejects.toMatchObject({ code: 'invalid_input', data: { key: 'sessionId' } });
    await expect(a.placement.dispatch({ sessionId: 's1', on: 'not a machine!' })).rejects.toMatchObject({ code: 'invalid_input', data: { key: 'on' } });
    await expect(a.placement.dispatch({ sessionId: 's1', on: 42 })).rejects.toThrow(/^on must be a machine name/);
  });
});
