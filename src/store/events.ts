/**
 * Event ingestion: idempotent by (session, seq), so re-reading a log after a crash or restart
 * neither loses nor duplicates anything. The session's projection (state, usage, activity,
 * approvals) is updated in the same transaction as the events it derives from. Which lines
 * continue the sequence is decided before (src/sessions/sequence.ts, decision 167): each
 * event is stored under the seq its line claims, never another.
 */
import type { BatonEvent } from '../events/index.js';
import { describeActivity } from '../events/format.js';
import type { Db } from './db.js';
import { projectionOf, type SessionProjection, type SessionRow } from './sessions.js';

/**
 * Events inserted by one statement: a call to SQLite per row cost a quarter more CPU than one per
 * this many rows (decision 466). A batch's last few rows are inserted one by one.
 */
const ROWS_PER_INSERT = 50;
const EVENT_COLUMNS = '(session_id, seq, ts, type, body_json)';

export class EventStore {
  private readonly insertEvent;
  private readonly insertEvents;
  private readonly storedAbove;
  private readonly insertApproval;
  private readonly resolveApproval;
  private readonly ingestTx;

  constructor(
    private readonly db: Db,
    private readonly onProjection: (sessionId: string, projection: SessionProjection) => void,
    /** Called inside the ingesting transaction for each newly stored event. */
    private readonly onStored: (row: SessionRow, event: BatonEvent) => void = () => undefined,
  ) {
    this.insertEvent = db.prepare(`INSERT INTO events ${EVENT_COLUMNS} VALUES (?, ?, ?, ?, ?)`);
    this.insertEvents = db.prepare(
      `INSERT INTO events ${EVENT_COLUMNS} VALUES ${Array(ROWS_PER_INSERT).fill('(?, ?, ?, ?, ?)').join(', ')}`,
    );
    this.storedAbove = db
      .prepare<[string, number], number>('SELECT seq FROM events WHERE session_id = ? AND seq > ?')
      .pluck();
    this.insertApproval = db.prepare(
      `INSERT OR IGNORE INTO approvals (session_id, request_id, tool, input, reason, requested_seq, requested_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.resolveApproval = db.prepare(
      `UPDATE approvals SET status = ?, decision_reason = ?, resolved_at = ? WHERE session_id = ? AND request_id = ?`,
    );
    this.ingestTx = db.transaction(
      (
        row: SessionRow,
        events: BatonEvent[],
        texts: readonly (string | undefined)[],
        offset: number,
        out: { stored: BatonEvent[] },
      ) => {
        const projection = projectionOf(row);
        // The byte offset, stored in this same transaction, makes ingestion exactly-once. A row
        // above the stored last seq is not expected; one there already (another writer's) is
        // neither written nor said again, as the key (session, seq) would have it.
        const there = new Set(this.storedAbove.all(row.id, projection.lastSeq));
        const rows: (string | number)[] = [];
        for (let i = 0; i < events.length; i++) {
          const event = events[i]!;
          if (event.seq <= projection.lastSeq || there.has(event.seq)) continue;
          // The log's line as written when it holds nothing the check dropped, else the checked
          // event written again (decision 410).
          rows.push(row.id, event.seq, event.ts, event.type, texts[i] ?? JSON.stringify(event));
          if (rows.length === ROWS_PER_INSERT * 5) {
            this.insertEvents.run(rows);
            rows.length = 0;
          }
          out.stored.push(event);
          this.project(row.id, projection, event);
          this.onStored(row, event);
        }
        for (let at = 0; at < rows.length; at += 5) this.insertEvent.run(rows.slice(at, at + 5));
        // The activity line is the newest stored event's that has one: looked for from the end,
        // rather than worded for every event of a batch and overwritten (decision 348).
        for (let i = out.stored.length - 1; i >= 0; i--) {
          const activity = describeActivity(out.stored[i]!);
          if (activity === undefined) continue;
          projection.activity = activity;
          break;
        }
        projection.offset = Math.max(projection.offset, offset);
        this.onProjection(row.id, projection);
      },
    );
  }

  /**
   * Ingests the events of a session's log that continue its sequence (in order, each above the
   * stored last seq) and moves the stored offset to `offset`. Returns the events stored.
   * `texts[i]`, when given, is the JSON stored for `events[i]`: its log line, which the caller
   * has proved parses back to exactly that event (`parseEventText`); else the event is written.
   */
  ingest(
    row: SessionRow,
    events: BatonEvent[],
    offset: number,
    texts: readonly (string | undefined)[] = [],
  ): { stored: BatonEvent[] } {
    const out = { stored: [] as BatonEvent[] };
    this.ingestTx(row, events, texts, offset, out);
    return out;
  }

  /** Events with seq > after, oldest first. */
  list(sessionId: string, after = 0, limit = 10_000): BatonEvent[] {
    const rows = this.db
      .prepare('SELECT body_json FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(sessionId, after, limit) as { body_json: string }[];
    return rows.map((r) => JSON.parse(r.body_json) as BatonEvent);
  }

  /** The newest events of the given types, newest first. */
  latest(sessionId: string, types: string[], limit: number): BatonEvent[] {
    const placeholders = types.map(() => '?').join(', ');
    const rows = this.db
      .prepare(
        `SELECT body_json FROM events WHERE session_id = ? AND type IN (${placeholders}) ORDER BY seq DESC LIMIT ?`,
      )
      .all(sessionId, ...types, limit) as { body_json: string }[];
    return rows.map((r) => JSON.parse(r.body_json) as BatonEvent);
  }

  count(sessionId: string): number {
    return (
      this.db.prepare('SELECT count(*) AS n FROM events WHERE session_id = ?').get(sessionId) as { n: number }
    ).n;
  }

  private project(sessionId: string, p: SessionProjection, event: BatonEvent): void {
    p.lastSeq = event.seq;
    p.lastEventAt = event.ts;
    switch (event.type) {
      case 'state.changed':
        p.state = event.to;
        p.reason = event.reason;
        break;
      case 'usage.reported':
        p.inputTokens += event.inputTokens;
        p.outputTokens += event.outputTokens;
        p.costUsd += event.costUsd ?? 0;
        break;
      case 'agent.identified':
        p.agentSessionId = event.agentSessionId;
        break;
      case 'approval.requested':
        this.insertApproval.run(
          sessionId,
          event.requestId,
          event.tool,
          event.input,
          event.reason ?? null,
          event.seq,
          event.ts,
        );
        break;
      case 'approval.resolved':
        this.resolveApproval.run(
          event.decision === 'allow' ? 'allowed' : 'denied',
          event.reason ?? null,
          event.ts,
          sessionId,
          event.requestId,
        );
        break;
      default:
        break;
    }
  }
}
