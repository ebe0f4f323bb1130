import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { pruneSharedLog } from './retention.js';

const { database, cleanups } = clusterDatabases();
const DAY = 24 * 60 * 60_000;

describe("the shared log's retention", () => {
  test("drops rows past it but each live session's latest view; a removed session goes whole", async () => {
    const pool = new pg.Pool({ connectionString: await database(), max: 1 });
    cleanups.push(() => pool.end());
    const add = async (daysAgo: number, type: string, data: Record<string, unknown>): Promise<number> => {
      const { rows } = await pool.query<{ seq: string }>(
        `INSERT INTO workspace_events (at, type, data) VALUES (now() - make_interval(days => $1), $2, $3) RETURNING seq`,
        [daysAgo, type, JSON.stringify(data)],
      );
      return Number(rows[0]!.seq);
    };
    const view = (sessionId: string) => ({ machine: 'beta', sessionId, view: { id: sessionId } });
    await add(40, 'cluster.session', view('resting'));
    const resting = await add(35, 'cluster.session', view('resting'));
    await add(40, 'cluster.event', { machine: 'beta', sessionId: 'resting', eventSeq: 1, event: {} });
    await add(40, 'cluster.session', view('gone'));
    await add(39, 'cluster.session_removed', { machine: 'beta', sessionId: 'gone' });
    await add(40, 'cluster.relayed', { machine: 'beta', localSeq: 1, event: {} });
    const fresh = await add(1, 'cluster.relayed', { machine: 'beta', localSeq: 2, event: {} });
    const busy = await add(2, 'cluster.session', view('busy'));

    expect(await pruneSharedLog(pool, 30 * DAY)).toBe(5);
    const { rows } = await pool.query<{ seq: string }>('SELECT seq FROM workspace_events ORDER BY seq');
    expect(rows.map((r) => Number(r.seq))).toEqual([resting, fresh, busy]);
    // Pruning again, or from another machine at once, removes nothing more.
    expect(await pruneSharedLog(pool, 30 * DAY)).toBe(0);
  });
});
