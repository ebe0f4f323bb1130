/**
 * Event ingestion: idempotent by (session, seq), so re-reading a log after a crash or restart
 * neither loses nor duplicates anything. The session's projection (state, usage, activity,
 * approvals) is updated in the same transaction as the events it derives from.
 */
import type { BatonEvent } from '../events/index.js';
import { describeActivity } from '../events/format.js';
import type { Db } from './db.js';
import { projectionOf, type SessionProjection, type SessionRow } from './sessions.js';

/** An event whose seq in the file was not the next one, and the seq it was stored under. */
export interface Renumbered {
  written: number;
  stored: number;
}

export class EventStore {
  private readonly insertEvent;
  private readonly insertApproval;
  private readonly resolveApproval;
  private readonly ingestTx;

  constructor(
    private readonly db: Db,
    private readonly onProjection: (sessionId: string, projection: SessionProjection) => void,
    /** Called inside the ingesting transaction for each newly stored event. */
    private readonly onStored: (row: SessionRow, event: BatonEvent) => void = () => undefined,
  ) {
    this.insertEvent = db.prepare(
      'INSERT OR IGNORE INTO events (session_id, seq, ts, type, body_json) VALUES (?, ?, ?, ?, ?)',
    );
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
        offset: number,
        out: { stored: BatonEvent[]; renumbered: Renumbered[] },
      ) => {
        const projection = projectionOf(row);
        let inserted = 0;
        for (const read of events) {
          // The byte offset, stored in this same transaction, is what makes ingestion exactly-once;
          // the seq written in the file is not trusted: a line with a wrong one (a gap, a repeat)
          // would otherwise hide every event after it. Events are numbered in the order written.
          const seq = projection.lastSeq + 1;
          const event = read.seq === seq ? read : { ...read, seq };
          if (read.seq !== seq) out.renumbered.push({ written: read.seq, stored: seq });
          const result = this.insertEvent.run(row.id, event.seq, event.ts, event.type, JSON.stringify(event));
          if (result.changes === 0) continue;
          inserted++;
          out.stored.push(event);
          this.project(row.id, projection, event);
          this.onStored(row, event);
        }
        projection.offset = Math.max(projection.offset, offset);
        this.onProjection(row.id, projection);
        return inserted;
      },
    );
  }

  /**
   * Ingests events read from a session's log up to byte `offset` (all of them new: read from the
   * stored offset). Returns the events as stored, and where the file's seq was not the next one.
   */
  ingest(
    row: SessionRow,
    events: BatonEvent[],
    offset: number,
  ): { stored: BatonEvent[]; renumbered: Renumbered[] } {
    const out = { stored: [] as BatonEvent[], renumbered: [] as Renumbered[] };
    this.ingestTx(row, events, offset, out);
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
    const activity = describeActivity(event);
    if (activity !== undefined) p.activity = activity;
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
