/** The conflict radar's own events, read back after a restart so a new supervisor does not announce known conflicts again. */
import type { Db } from './db.js';

const RADAR_TYPES = ['radar.conflict_found', 'radar.conflict_changed', 'radar.conflict_cleared'] as const;

/** Every radar event, oldest first (the `(type, seq)` index serves this without reading other domains' events). */
export function radarEvents(db: Db): { type: string; data: unknown }[] {
  const rows = db
    .prepare(
      `SELECT type, data_json FROM workspace_events WHERE type IN (${RADAR_TYPES.map(() => '?').join(', ')}) ORDER BY seq`,
    )
    .all(...RADAR_TYPES) as { type: string; data_json: string }[];
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data_json) as unknown }));
}
