/**
 * The workspace_events table: the bus's storage, one global sequence across domains. Rows with a
 * `machine` were relayed from another machine of a shared workspace: they share the sequence (a
 * stream's one cursor) but are not this machine's record, so the domains' own reads skip them.
 */
import type { Db } from './db.js';

export interface StoredWorkspaceEvent {
  seq: number;
  ts: string;
  type: string;
  data: unknown;
}

/** Another machine's event as stored here: `seq` is this machine's, `logSeq` the shared log's. */
export interface StoredRelayedEvent extends StoredWorkspaceEvent {
  machine: string;
  logSeq: number;
}

type Row = {
  seq: number;
  ts: string;
  type: string;
  data_json: string;
  machine: string | null;
  log_seq: number | null;
};

export class WorkspaceEventStore {
  private readonly insertEvent;
  private readonly insertRelayed;
  private readonly selectAfter;
  private readonly selectAllAfter;
  private readonly selectLast;
  private readonly selectLatestOfType;
  private readonly selectLastLogSeq;
  private readonly selectByLogSeq;
  private readonly selectCursor;
  private readonly upsertCursor;
  private readonly deleteRelayed;

  constructor(private readonly db: Db) {
    this.insertEvent = db.prepare('INSERT INTO workspace_events (ts, type, data_json) VALUES (?, ?, ?)');
    this.insertRelayed = db.prepare(
      'INSERT OR IGNORE INTO workspace_events (ts, type, data_json, machine, log_seq) VALUES (?, ?, ?, ?, ?)',
    );
    this.selectAfter = db.prepare(
      'SELECT seq, ts, type, data_json FROM workspace_events WHERE seq > ? AND machine IS NULL ORDER BY seq LIMIT ?',
    );
    this.selectAllAfter = db.prepare(
      'SELECT seq, ts, type, data_json, machine, log_seq FROM workspace_events WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    this.selectLast = db.prepare('SELECT max(seq) AS seq FROM workspace_events');
    this.selectLatestOfType = db.prepare(
      'SELECT seq, ts, type, data_json FROM workspace_events WHERE type = ? AND machine IS NULL ORDER BY seq DESC LIMIT ?',
    );
    this.selectLastLogSeq = db.prepare('SELECT max(log_seq) AS seq FROM workspace_events');
    this.selectByLogSeq = db.prepare('SELECT 1 FROM workspace_events WHERE log_seq = ?');
    this.selectCursor = db.prepare('SELECT seq FROM relay_cursors WHERE name = ?');
    this.deleteRelayed = db.prepare('DELETE FROM workspace_events WHERE machine IS NOT NULL AND ts < ?');
    this.upsertCursor = db.prepare(
      'INSERT INTO relay_cursors (name, seq) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET seq = excluded.seq',
    );
  }

  /** The newest events of one type published here, newest first. */
  latestOfType(type: string, limit: number): StoredWorkspaceEvent[] {
    return (this.selectLatestOfType.all(type, limit) as Row[]).map(local);
  }

  /** The data of another machine's newest event of `type` about session `sessionId`, if one reached this machine. */
  latestRelayedAbout(type: string, sessionId: string): unknown {
    const row = this.db
      .prepare(
        "SELECT data_json FROM workspace_events WHERE type = ? AND machine IS NOT NULL AND json_extract(data_json, '$.sessionId') = ? ORDER BY seq DESC LIMIT 1",
      )
      .get(type, sessionId) as { data_json: string } | undefined;
    return row === undefined ? undefined : JSON.parse(row.data_json);
  }

  /** The data of this machine's newest event of `type` about session `sessionId`, if there is one. */
  latestAbout(type: string, sessionId: string): unknown {
    const row = this.db
      .prepare(
        "SELECT data_json FROM workspace_events WHERE type = ? AND machine IS NULL AND json_extract(data_json, '$.sessionId') = ? ORDER BY seq DESC LIMIT 1",
      )
      .get(type, sessionId) as { data_json: string } | undefined;
    return row === undefined ? undefined : JSON.parse(row.data_json);
  }

  append(ts: string, type: string, data: unknown): StoredWorkspaceEvent {
    const result = this.insertEvent.run(ts, type, JSON.stringify(data));
    return { seq: Number(result.lastInsertRowid), ts, type, data };
  }

  /** Stores another machine's event; undefined when its log seq is stored already. */
  appendRelayed(event: Omit<StoredRelayedEvent, 'seq'>): StoredRelayedEvent | undefined {
    // Looked up first: an ignored INSERT would still use up a seq (AUTOINCREMENT), leaving a gap.
    if (this.selectByLogSeq.get(event.logSeq) !== undefined) return undefined;
    const result = this.insertRelayed.run(
      event.ts,
      event.type,
      JSON.stringify(event.data),
      event.machine,
      event.logSeq,
    );
    if (result.changes === 0) return undefined;
    return { ...event, seq: Number(result.lastInsertRowid) };
  }

  /** Events published here with seq > after, oldest first. */
  list(after: number, limit: number): StoredWorkspaceEvent[] {
    return (this.selectAfter.all(after, limit) as Row[]).map(local);
  }

  /** Every event with seq > after, this machine's and relayed ones, oldest first. */
  listAll(after: number, limit: number): (StoredWorkspaceEvent | StoredRelayedEvent)[] {
    return (this.selectAllAfter.all(after, limit) as Row[]).map((r) =>
      r.machine === null || r.log_seq === null
        ? local(r)
        : { ...local(r), machine: r.machine, logSeq: r.log_seq },
    );
  }

  /** Deletes other machines' events stored here before `before` (ISO); returns how many. */
  pruneRelayed(before: string): number {
    return this.deleteRelayed.run(before).changes;
  }

  lastSeq(): number {
    return (this.selectLast.get() as { seq: number | null }).seq ?? 0;
  }

  /** The newest shared-log seq of a relayed event stored here (0: none). */
  lastLogSeq(): number {
    return (this.selectLastLogSeq.get() as { seq: number | null }).seq ?? 0;
  }

  cursor(name: string): number | undefined {
    return (this.selectCursor.get(name) as { seq: number } | undefined)?.seq;
  }

  setCursor(name: string, seq: number): void {
    this.upsertCursor.run(name, seq);
  }
}

function local(r: Row): StoredWorkspaceEvent {
  return { seq: r.seq, ts: r.ts, type: r.type, data: JSON.parse(r.data_json) as unknown };
}
