/**
 * The merge_journal table (decision 166): one row per merge, its intent written when it is
 * queued and its step moved forward before each step's effect shows, so a restart knows how far
 * a killed merge got. Finished rows keep the merge's result, the newest `KEEP` of them.
 */
import type { Db } from './db.js';

export type MergeStep = 'queued' | 'merging' | 'checked' | 'advanced' | 'finished';

export interface MergeJournalRow {
  merge_id: string;
  root: string;
  project: string;
  base: string;
  squash: number;
  sessions_json: string;
  step: MergeStep;
  previous: string | null;
  commit: string | null;
  check_json: string | null;
  checkout: string | null;
  queued_at: string;
  updated_at: string;
  result_json: string | null;
  finished_at: string | null;
}

export interface MergeIntent {
  mergeId: string;
  root: string;
  project: string;
  base: string;
  squash: boolean;
  sessions: { sessionId: string; name: string }[];
  queuedAt: string;
}

/** Finished merges kept for `baton merge` (as many as the queue's recent list showed in memory). */
const KEEP = 50;

export class MergeJournal {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The merge's intent, before anything of it is done. */
  begin(intent: MergeIntent): void {
    this.db
      .prepare(
        `INSERT INTO merge_journal (merge_id, root, project, base, squash, sessions_json, step, queued_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
      )
      .run(
        intent.mergeId,
        intent.root,
        intent.project,
        intent.base,
        intent.squash ? 1 : 0,
        JSON.stringify(intent.sessions),
        intent.queuedAt,
        this.now(),
      );
  }

  /** The merge runs, from the base at `previous`. */
  merging(mergeId: string, previous: string): void {
    this.db
      .prepare(`UPDATE merge_journal SET step = 'merging', previous = ?, updated_at = ? WHERE merge_id = ?`)
      .run(previous, this.now(), mergeId);
  }

  /** Checked and about to move the base from `previous` to `commit`: written before the base moves. */
  checked(
    mergeId: string,
    move: { previous: string; commit: string; check: unknown; checkout: string | null },
  ): void {
    this.db
      .prepare(
        `UPDATE merge_journal SET step = 'checked', previous = ?, [commit] = ?, check_json = ?, checkout = ?, updated_at = ?
         WHERE merge_id = ?`,
      )
      .run(move.previous, move.commit, JSON.stringify(move.check), move.checkout, this.now(), mergeId);
  }

  /** The base moved: what is left is the landing's own work (sessions retired, the event). */
  advanced(mergeId: string): void {
    this.db
      .prepare(`UPDATE merge_journal SET step = 'advanced', updated_at = ? WHERE merge_id = ?`)
      .run(this.now(), mergeId);
  }

  /** The merge is over with `result` (call inside the transaction that publishes its last event). */
  finish(mergeId: string, result: { finishedAt: string }): void {
    this.db
      .prepare(
        `UPDATE merge_journal SET step = 'finished', result_json = ?, finished_at = ?, updated_at = ? WHERE merge_id = ?`,
      )
      .run(JSON.stringify(result), result.finishedAt, this.now(), mergeId);
    this.db
      .prepare(
        `DELETE FROM merge_journal WHERE step = 'finished' AND merge_id NOT IN
           (SELECT merge_id FROM merge_journal WHERE step = 'finished' ORDER BY finished_at DESC, rowid DESC LIMIT ?)`,
      )
      .run(KEEP);
  }

  /** Merges a stopped supervisor left unfinished, oldest first. */
  unfinished(): MergeJournalRow[] {
    return this.db
      .prepare(`SELECT * FROM merge_journal WHERE step <> 'finished' ORDER BY queued_at, rowid`)
      .all() as MergeJournalRow[];
  }

  /** Results of finished merges, newest first. */
  results(limit = KEEP): unknown[] {
    return (
      this.db
        .prepare(
          `SELECT result_json FROM merge_journal WHERE step = 'finished' ORDER BY finished_at DESC, rowid DESC LIMIT ?`,
        )
        .all(limit) as { result_json: string }[]
    ).map((row) => JSON.parse(row.result_json) as unknown);
  }

  private now(): string {
    return this.clock().toISOString();
  }
}
