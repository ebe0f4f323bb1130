/**
 * The shared log's retention as a user sets it (decision 142, `storeRetentionDays` or
 * BATON_STORE_RETENTION_DAYS): a supervisor joining the store prunes what is older, and keeps
 * what is not; a bad value stops `daemon start` naming it.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { clusterMachines, ACROSS_MACHINES } from '../support/cluster.js';
import { until } from '../support/wait.js';

const { database, machine } = clusterMachines();

async function logRows(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<{ seq: string; type: string }[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return (await pool.query<{ seq: string; type: string }>(sql, values)).rows;
  } finally {
    await pool.end();
  }
}

describe("the shared log's retention", () => {
  it('is what the machine is told: rows older are pruned at its start, newer ones stay', async () => {
    const url = await database();
    // A first machine creates the tables; its own rows are new.
    await machine('beta', url);
    const add = (daysAgo: number, localSeq: number) =>
      logRows(
        url,
        `INSERT INTO workspace_events (at, type, data) VALUES (now() - make_interval(days => $1), 'cluster.relayed', $2) RETURNING seq, type`,
        [daysAgo, JSON.stringify({ machine: 'gamma', localSeq, event: {} })],
      );
    const [old] = await add(10, 1);
    const [recent] = await add(3, 2);
    await machine('alpha', url, { BATON_STORE_RETENTION_DAYS: '5' });
    await until(
      async () =>
        (await logRows(url, 'SELECT seq FROM workspace_events WHERE seq = $1', [old!.seq])).length === 0,
      'alpha pruned the 10-day-old row',
      ACROSS_MACHINES,
    );
    expect(
      await logRows(url, 'SELECT seq, type FROM workspace_events WHERE seq = $1', [recent!.seq]),
    ).toEqual([recent]);
  });

  it('refuses a value that is not a whole number of days, naming it', async () => {
    const url = await database();
    const refused = machine('alpha', url, { BATON_STORE_RETENTION_DAYS: 'forever' });
    await expect(refused).rejects.toThrow(
      /BATON_STORE_RETENTION_DAYS must be a whole number of days from 1 to 3650, got "forever"/,
    );
  });
});
