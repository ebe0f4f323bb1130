import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { pruneSharedLog } from './retention.js';
import { RoutineFireClaims } from './routine-fires.js';

const { database, cleanups } = clusterDatabases();

async function machines(...names: string[]): Promise<{ claims: RoutineFireClaims[]; pool: pg.Pool }> {
  const url = await database();
  const pool = new pg.Pool({ connectionString: url, max: names.length * 2 });
  cleanups.push(() => pool.end());
  return { claims: names.map((name) => new RoutineFireClaims(pool, name)), pool };
}

describe("a routine's fire claimed across machines", () => {
  test('the first claim holds it; every later one is told whose it is; another fire, routine or repository is its own', async () => {
    const {
      claims: [alpha, beta],
    } = await machines('alpha', 'beta');
    expect(await alpha!.claim('github.com/o/r', 'nightly', 'due:2026-11-24T02:00:00.000Z')).toBe('alpha');
    expect(await beta!.claim('github.com/o/r', 'nightly', 'due:2026-11-24T02:00:00.000Z')).toBe('alpha');
    expect(await alpha!.claim('github.com/o/r', 'nightly', 'due:2026-11-24T02:00:00.000Z')).toBe('alpha');
    expect(await beta!.claim('github.com/o/r', 'nightly', 'due:2026-11-25T02:00:00.000Z')).toBe('beta');
    expect(await beta!.claim('github.com/o/r', 'release', 'tag:v1.2.0')).toBe('beta');
    expect(await alpha!.claim('github.com/o/other', 'nightly', 'due:2026-11-24T02:00:00.000Z')).toBe('alpha');
  });

  test('machines claiming one fire at the same moment agree on one holder', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const { claims } = await machines(...names);
    for (let round = 0; round < 20; round++) {
      const held = await Promise.all(claims.map((c) => c.claim('github.com/o/r', 'nightly', `due:${round}`)));
      expect(new Set(held).size).toBe(1);
      expect(names).toContain(held[0]);
    }
  });

  test("the shared log's retention prunes the claims older than it, and only those", async () => {
    const {
      claims: [alpha],
      pool,
    } = await machines('alpha');
    await alpha!.claim('r', 'nightly', 'old');
    await alpha!.claim('r', 'nightly', 'new');
    await pool.query("UPDATE routine_fires SET at = now() - interval '31 days' WHERE fire_key = 'old'");
    expect(await pruneSharedLog(pool, 30 * 24 * 3_600_000)).toBe(1);
    expect((await pool.query('SELECT fire_key FROM routine_fires')).rows).toEqual([{ fire_key: 'new' }]);
  });
});
