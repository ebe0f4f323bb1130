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

async function registry(clock: () => Date): Promise<WorkerRegistry> {
  const pool = new pg.Pool({ connectionString: await server().database(), max: 2 });
  pools.push(pool);
  await migrate(pool);
  return new WorkerRegistry(pool, clock, { heartbeatMs: 10_000, missedBeats: 2 });
}

describe('the worker registry', () => {
  test('registers, heartbeats, lists with staleness on the injected clock, and deregisters', async () => {
    let now = new Date('2026-05-01T10:00:00.000Z').getTime();
    const workers = await registry(() => new Date(now));
    await workers.register({ name: 'laptop', capacity: 4, version: '0.1.0' });
    await workers.register({ name: 'build-box.lan', capacity: 16, version: '0.1.0' });
    now += 15_000;
    await workers.heartbeat('laptop', 3);
    now += 6_000;
    // build-box last beat 21 s ago (> 2 × 10 s): stale; laptop 6 s ago: alive.
    expect(await workers.list()).toEqual([
      { name: 'build-box.lan', capacity: 16, running: 0, startedAt: '2026-05-01T10:00:00.000Z', heartbeatAt: '2026-05-01T10:00:00.000Z', version: '0.1.0', stale: true },
      { name: 'laptop', capacity: 4, running: 3, startedAt: '2026-05-01T10:00:00.000Z', heartbeatAt: '2026-05-01T10:00:15.000Z', version: '0.1.0', stale: false },
    ]);
    // Registering again after a restart resets its count and start time.
    const again = await workers.register({ name: 'build-box.lan', capacity: 8, version: '0.2.0' });
    expect(again).toMatchObject({ capacity: 8, running: 0, startedAt: '2026-05-01T10:00:21.000Z', version: '0.2.0', stale: false });
    expect(await workers.deregister('laptop')).toBe(true);
    expect(await workers.deregister('laptop')).toBe(false);
    await expect(workers.heartbeat('laptop', 0)).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('No worker named "laptop"') as unknown });
  });

  test('bad registrations are refused naming the bad key', async () => {
    const workers = await registry(() => new Date());
    await expect(workers.register({ name: 'has space', capacity: 1, version: '1' })).rejects.toMatchObject({ code: 'invalid_input', data: { key: 'name' } });
    await expect(workers.register({ name: 'ok', capacity: 1.5, version: '1' })).rejects.toMatchObject({ code: 'invalid_input', data: { key: 'capacity' } });
    await expect(workers.register({ name: 'ok', capacity: -1, version: '1' })).rejects.toThrow(/^capacity must be a whole number/);
    await expect(workers.register({ name: 'ok', capacity: 1, version: '' })).rejects.toMatchObject({ data: { key: 'version' } });
    expect(await workers.list()).toEqual([]);
  });
});
