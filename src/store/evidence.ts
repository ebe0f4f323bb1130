/**
 * The session_evidence table (decision 290): one row per session — the tree of its last recorded
 * turn and its agent's own checks in that turn, Baton's last check with the tree it ran on, and
 * the red→green run of its new tests. The JSON is src/provenance's; this file only keeps it.
 */
import type { Db } from './db.js';

export interface EvidenceRow {
  session_id: string;
  tree: string | null;
  claims_json: string;
  evidence_tree: string | null;
  evidence_json: string | null;
  red_green_json: string | null;
  /** The event that ended the turn whose record is under way (decision 430), or null. */
  record_seq: number | null;
  updated_at: string;
}

export class EvidenceStore {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  get(sessionId: string): EvidenceRow | undefined {
    return this.db.prepare('SELECT * FROM session_evidence WHERE session_id = ?').get(sessionId) as
      EvidenceRow | undefined;
  }

  /**
   * A turn ended at event `seq` and its record is queued: its agent ran `claims` in it (test-like
   * commands; none is an empty list).
   */
  claimed(sessionId: string, claims: readonly string[], seq: number): void {
    this.db
      .prepare(
        `INSERT INTO session_evidence (session_id, claims_json, record_seq, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET claims_json = excluded.claims_json,
           record_seq = excluded.record_seq, updated_at = excluded.updated_at`,
      )
      .run(sessionId, JSON.stringify(claims), seq, this.clock().toISOString());
  }

  /** The record of the turn that ended at `seq` is written (or could not be): none is under way. */
  recordEnded(sessionId: string, seq: number): void {
    this.db
      .prepare('UPDATE session_evidence SET record_seq = NULL WHERE session_id = ? AND record_seq = ?')
      .run(sessionId, seq);
  }

  /** Records a killed supervisor left under way: the session and the event that ended the turn. */
  recordsUnfinished(): { session_id: string; record_seq: number }[] {
    return this.db
      .prepare('SELECT session_id, record_seq FROM session_evidence WHERE record_seq IS NOT NULL')
      .all() as { session_id: string; record_seq: number }[];
  }

  /** A turn's work was recorded: the session's work is now `tree`. */
  recorded(sessionId: string, tree: string): void {
    this.db
      .prepare(
        `INSERT INTO session_evidence (session_id, tree, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET tree = excluded.tree, updated_at = excluded.updated_at`,
      )
      .run(sessionId, tree, this.clock().toISOString());
  }

  /** Baton ran the check on `tree`. */
  verified(sessionId: string, tree: string, evidence: unknown): void {
    this.db
      .prepare(
        `INSERT INTO session_evidence (session_id, evidence_tree, evidence_json, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET evidence_tree = excluded.evidence_tree,
           evidence_json = excluded.evidence_json, updated_at = excluded.updated_at`,
      )
      .run(sessionId, tree, JSON.stringify(evidence), this.clock().toISOString());
  }

  /** Baton ran the session's new tests against its base. */
  redGreen(sessionId: string, result: unknown): void {
    this.db
      .prepare(
        `INSERT INTO session_evidence (session_id, red_green_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET red_green_json = excluded.red_green_json,
           updated_at = excluded.updated_at`,
      )
      .run(sessionId, JSON.stringify(result), this.clock().toISOString());
  }

  /** Every run of the check on exactly this tree, newest first (a merge about to land it reuses one). */
  onTree(tree: string): EvidenceRow[] {
    return this.db
      .prepare('SELECT * FROM session_evidence WHERE evidence_tree = ? ORDER BY updated_at DESC')
      .all(tree) as EvidenceRow[];
  }
}
