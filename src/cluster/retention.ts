/**
 * How long the shared log keeps what it carries (decision 142). Every machine appends its
 * sessions' events and its workspace events to `workspace_events`; without pruning it grows for
 * ever. Rows older than the retention go, except the latest view of each session that still
 * exists (a session resting for weeks must stay visible to the others): its latest
 * `cluster.session` row is kept whatever its age, and a tombstone ends that. Deleting is
 * idempotent, so machines pruning at once do no harm; followers read by seq and never go back.
 */
import type pg from 'pg';
import { ClusterSessionPublished, ClusterSessionRemoved } from './events.js';

export const KEEP_MS = 30 * 24 * 60 * 60_000;

/** Deletes the log rows older than `keepMs` (by the database's clock) but the live sessions' latest views; returns how many. */
export async function pruneSharedLog(pool: pg.Pool, keepMs = KEEP_MS): Promise<number> {
  const result = await pool.query(
    `WITH latest AS (
       SELECT DISTINCT ON (data->>'sessionId') seq, type FROM workspace_events
       WHERE type IN ($2, $3) ORDER BY data->>'sessionId', seq DESC
     )
     DELETE FROM workspace_events w
     WHERE w.at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM latest l WHERE l.seq = w.seq AND l.type = $2)`,
    [keepMs, ClusterSessionPublished.type, ClusterSessionRemoved.type],
  );
  // The routine fires claimed (decision 145) are kept as long: a fire that old is never claimed again.
  const fires = await pool.query(
    'DELETE FROM routine_fires WHERE at < now() - make_interval(secs => $1::double precision / 1000)',
    [keepMs],
  );
  return (result.rowCount ?? 0) + (fires.rowCount ?? 0);
}
