/** Usage reports as recorded in the events table, with the session they belong to (removed ones too: their spend stays spent). */
import type { Db } from './db.js';

export interface UsageEventRow {
  session_id: string;
  seq: number;
  ts: string;
  body_json: string;
  name: string;
  agent: string;
  model: string | null;
  project_name: string;
}

export function listUsageEvents(
  db: Db,
  type: 'usage.reported' | 'limits.reported' = 'usage.reported',
): UsageEventRow[] {
  return db
    .prepare(
      `SELECT e.session_id, e.seq, e.ts, e.body_json, s.name, s.agent, s.model, p.name AS project_name
         FROM events e JOIN sessions s ON s.id = e.session_id JOIN projects p ON p.id = s.project_id
        WHERE e.type = ? ORDER BY e.ts, e.session_id, e.seq`,
    )
    .all(type) as UsageEventRow[];
}
