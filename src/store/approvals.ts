/**
 * The approvals table: each approval a session's agent asked for, and how it was answered. Rows
 * are written by ingestion (events.ts), in the transaction that stores `approval.requested` and
 * `approval.resolved`; this module is the table's read side.
 */
import type { Db } from './db.js';

export interface ApprovalRow {
  session_id: string;
  request_id: string;
  tool: string;
  input: string;
  reason: string | null;
  status: 'pending' | 'allowed' | 'denied';
  decision_reason: string | null;
  requested_seq: number;
  requested_at: string;
  resolved_at: string | null;
}

export class ApprovalStore {
  constructor(private readonly db: Db) {}

  get(sessionId: string, requestId: string): ApprovalRow | undefined {
    return this.db
      .prepare('SELECT * FROM approvals WHERE session_id = ? AND request_id = ?')
      .get(sessionId, requestId) as ApprovalRow | undefined;
  }

  /** The session's approvals nobody has answered yet, the newest first. */
  pending(sessionId: string): ApprovalRow[] {
    return this.db
      .prepare(
        "SELECT * FROM approvals WHERE session_id = ? AND status = 'pending' ORDER BY requested_seq DESC",
      )
      .all(sessionId) as ApprovalRow[];
  }
}
