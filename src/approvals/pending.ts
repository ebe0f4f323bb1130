/**
 * The read side of the approvals table (src/store/approvals.ts): which approval a session waits
 * on. Its state says that it waits on one (needs input, for an approval); the table says which
 * request, and that nobody has answered it yet.
 */
import { StateReason } from '../events/index.js';
import { ApprovalStore, type ApprovalRow } from '../store/approvals.js';
import type { Db } from '../store/db.js';

export type { ApprovalRow };

export class PendingApprovals {
  private readonly table: ApprovalStore;

  constructor(db: Db) {
    this.table = new ApprovalStore(db);
  }

  /** The approval the session waits on, unanswered; undefined when it waits on none. */
  waiting(session: { id: string; state: string; state_reason_json: string | null }): ApprovalRow | undefined {
    if (session.state !== 'needs_input' || session.state_reason_json === null) return undefined;
    const reason = StateReason.safeParse(JSON.parse(session.state_reason_json));
    if (!reason.success || reason.data.kind !== 'approval') return undefined;
    const row = this.table.get(session.id, reason.data.requestId);
    return row?.status === 'pending' ? row : undefined;
  }

  /** The session's approvals nobody has answered yet, the newest first. */
  pending(sessionId: string): ApprovalRow[] {
    return this.table.pending(sessionId);
  }
}
