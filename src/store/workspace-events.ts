/** The workspace_events table: the bus's storage, one global sequence across domains. */
import type { Db } from './db.js';

export interface StoredWorkspaceEvent {
  seq: number;
  ts: string;
  type: string;
  data: unknown;
}

export class WorkspaceEventStore {
  private readonly insertEvent;
  private readonly selectAfter;
  private readonly selectLast;
  private readonly selectLatestOfType;

  constructor(db: Db) {
    this.insertEvent = db.prepare('INSERT INTO workspace_events (ts, type, data_json) VALUES (?, ?, ?)');
    this.selectAfter = db.prepare('SELECT seq, ts, type, data_json FROM workspace_events WHERE seq > ? ORDER BY seq LIMIT ?');
    this.selectLast = db.prepare('SELECT max(seq) AS seq FROM workspace_events');
    this.selectLatestOfType = db.prepare('SELECT seq, ts, type, data_json FROM workspace_events WHERE type = ? ORDER BY seq DESC LIMIT ?');
  }

  /** The newest events of one type, newest first. */
  latestOfType(type: string, limit: number): StoredWorkspaceEvent[] {
    const rows = this.selectLatestOfType.all(type, limit) as { seq: number; ts: string; type: string; data_json: string }[];
    return rows.map((r) => ({ seq: r.seq, ts: r.ts, type: r.type, data: JSON.parse(r.data_json) as unknown }));
  }

  append(ts: string, type: string, data: unknown): StoredWorkspaceEvent {
    const result = this.insertEvent.run(ts, type, JSON.stringify(data));
    return { seq: Number(result.lastInsertRowid), ts, type, data };
  }

  /** Events with seq > after, oldest first. */
  list(after: number, limit: number): StoredWorkspaceEvent[] {
    const rows = this.selectAfter.all(after, limit) as { seq: number; ts: string; type: string; data_json: string }[];
    return rows.map((r) => ({ seq: r.seq, ts: r.ts, type: r.type, data: JSON.parse(r.data_json) as unknown }));
  }

  lastSeq(): number {
    return (this.selectLast.get() as { seq: number | null }).seq ?? 0;
  }
}
