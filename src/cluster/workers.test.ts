import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile } from '../../test/support/postgres.js';
import { migrate } from './schema.js';
import { WorkerRegistry } from './workers.js';

const server = postgresForFile();
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

async function registry(): Promise<{ workers: WorkerRegistry; pool: pg.Pool }> {
  const pool = new pg.Pool({ connectionString: await server().database(), max: 2 });
  pools.push(pool);
  await migrate(pool);
  return { workers: new WorkerRegistry(pool, { heartbeatMs: 10_000, missedBeats: 2 }), pool };
}

/** Moves a worker's last heartbeat into the past, as if it had stopped beating `ms` ago. */
async function age(pool: pg.Pool, name: string, ms: number): Promise<void> {
  await pool.query(
    'UPDATE workers SET heartbeat_at = now() - make_interval(secs => $2::double precision / 1000) WHERE name = $1',
    [name, ms],
  );
}

describe('the worker registry', () => {
  test('registers, heartbeats, lists with staleness judged on the database clock, and deregisters', async () => {
    const { workers, pool } = await registry();
    const laptop = await workers.register({ name: 'laptop', capacity: 4, version: '0.1.0' });
    await workers.register({ name: 'build-box.lan', capacity: 16, version: '0.1.0' });
    // build-box last beat 21 s ago (> 2 × 10 s): stale; laptop beat just now: alive.
    await age(pool, 'build-box.lan', 21_000);
    await age(pool, 'laptop', 15_000);
    expect(
      await workers.heartbeat({ name: 'laptop', incarnation: laptop.incarnation, sessions: ['a', 'b', 'c'] }),
    ).toEqual({ fenced: ['a', 'b', 'c'] });
    const listed = await workers.list();
    expect(listed.map((w) => [w.name, w.incarnation, w.capacity, w.running, w.version, w.stale])).toEqual([
      ['build-box.lan', 1, 16, 0, '0.1.0', true],
      ['laptop', 1, 4, 3, '0.1.0', false],
    ]);
    const { rows } = await pool.query<{ beat: Date; now: Date }>(
      "SELECT heartbeat_at AS beat, now() AS now FROM workers WHERE name = 'laptop'",
    );
    expect(Math.abs(rows[0]!.now.getTime() - rows[0]!.beat.getTime())).toBeLessThan(5_000);
    // Registering again after a restart is a new incarnation, alive, with its count reset.
    const again = await workers.register({ name: 'build-box.lan', capacity: 8, version: '0.2.0' });
    expect(again).toMatchObject({ incarnation: 2, capacity: 8, running: 0, version: '0.2.0', stale: false });
    // The earlier incarnation's heartbeat is refused: it holds nothing now.
    await expect(
      workers.heartbeat({ name: 'build-box.lan', incarnation: 1, sessions: [] }),
    ).rejects.toMatchObject({ code: 'not_found', data: { worker: 'build-box.lan', incarnation: 1 } });
    expect(await workers.deregister('laptop')).toBe(true);
    expect(await workers.deregister('laptop')).toBe(false);
    await expect(workers.heartbeat({ name: 'laptop', incarnation: 1, sessions: [] })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('No worker named "laptop"') as unknown,
    });
  });

  test('a heartbeat is stamped with the database clock, whatever the process clock says', async () => {
    const { workers, pool } = await registry();
    const box = await workers.register({ name: 'skewed', capacity: 1, version: '1' });
    await age(pool, 'skewed', 60_000);
    expect((await workers.list())[0]!.stale).toBe(true);
    await workers.heartbeat({ name: 'skewed', incarnation: box.incarnation, sessions: [] });
    const { rows } = await pool.query<{ fresh: boolean }>(
      "SELECT heartbeat_at > now() - interval '5 seconds' AND heartbeat_at <= now() AS fresh FROM workers",
    );
    expect(rows[0]!.fresh).toBe(true);
    expect((await workers.list())[0]!.stale).toBe(false);
  });

  test('bad registrations are refused naming the bad key', async () => {
    const { workers } = await registry();
    await expect(workers.register({ name: 'has space', capacity: 1, version: '1' })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'name' },
    });
    // `any` means "every machine" to a dispatch, so no machine may take it as its name.
    await expect(workers.register({ name: 'any', capacity: 1, version: '1' })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'name', value: 'any' },
    });
    await expect(workers.register({ name: 'ANY', capacity: 1, version: '1' })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'name' },
    });
    await expect(workers.register({ name: 'ok', capacity: 1.5, version: '1' })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'capacity' },
    });
    await expect(workers.register({ name: 'ok', capacity: -1, version: '1' })).rejects.toThrow(
      /^capacity must be a whole number/,
    );
    await expect(workers.register({ name: 'ok', capacity: 1, version: '' })).rejects.toMatchObject({
      data: { key: 'version' },
    });
    expect(await workers.list()).toEqual([]);
  });
});
