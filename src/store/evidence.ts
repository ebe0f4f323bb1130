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

  /** A turn ended: its agent ran `claims` in it (test-like commands; none is an empty list). */
  claimed(sessionId: string, claims: readonly string[]): void {
    this.db
      .prepare(
        `INSERT INTO session_evidence (session_id, claims_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET claims_json = excluded.claims_json, updated_at = excluded.updated_at`,
      )
      .run(sessionId, JSON.stringify(claims), this.clock().toISOString());
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
