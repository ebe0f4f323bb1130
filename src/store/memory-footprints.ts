/** The memory_footprints table: finished sessions' peak memory by agent kind (decision 308). */
import type { Db } from './db.js';

export class MemoryFootprintStore {
  constructor(private readonly db: Db) {}

  /** The recent peaks of each kind, oldest first, at most `keep` per kind. */
  recent(keep: number): Map<string, number[]> {
    const rows = this.db
      .prepare(
        `SELECT agent, peak_mb FROM (
           SELECT agent, peak_mb, ended_at, rowid AS r,
                  ROW_NUMBER() OVER (PARTITION BY agent ORDER BY ended_at DESC, rowid DESC) AS n
           FROM memory_footprints)
         WHERE n <= ? ORDER BY agent, ended_at, r`,
      )
      .all(keep) as { agent: string; peak_mb: number }[];
    const peaks = new Map<string, number[]>();
    for (const row of rows) peaks.set(row.agent, [...(peaks.get(row.agent) ?? []), row.peak_mb]);
    return peaks;
  }

  /** One finished session's peak; the kind's rows beyond the newest `keep` go. */
  add(
    sessionId: string,
    agent: string,
    peakMb: number,
    samples: number,
    keep: number,
    at = new Date(),
  ): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          'INSERT OR REPLACE INTO memory_footprints (session_id, agent, peak_mb, samples, ended_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(sessionId, agent, peakMb, samples, at.toISOString());
      this.db
        .prepare(
          `DELETE FROM memory_footprints WHERE agent = ? AND session_id NOT IN (
             SELECT session_id FROM memory_footprints WHERE agent = ? ORDER BY ended_at DESC, rowid DESC LIMIT ?)`,
        )
        .run(agent, agent, keep);
    })();
  }
}
