/** The task_outbox table: a shared repository's automatic task writes waiting for the shared store (decision 147). */
import type { Db } from './db.js';

/** One automatic write, as queued; `baseVersion`: the store's version of the task this machine had then. */
export type QueuedTaskWrite = { taskId: number; baseVersion: number; at: string } & (
  { kind: 'move'; column: string; setBy: string } | { kind: 'merged'; commit: string }
);

interface OutboxRow {
  seq: number;
  task_id: number;
  kind: 'move' | 'merged';
  board_column: string | null;
  set_by: string | null;
  merged_commit: string | null;
  base_version: number;
  at: string;
}

export class TaskOutbox {
  constructor(private readonly db: Db) {}

  add(write: QueuedTaskWrite): number {
    const { lastInsertRowid } = this.db
      .prepare(
        'INSERT INTO task_outbox (task_id, kind, board_column, set_by, merged_commit, base_version, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        write.taskId,
        write.kind,
        write.kind === 'move' ? write.column : null,
        write.kind === 'move' ? write.setBy : null,
        write.kind === 'merged' ? write.commit : null,
        write.baseVersion,
        write.at,
      );
    return Number(lastInsertRowid);
  }

  /** The oldest write waiting, with its place in the queue. */
  first(): (QueuedTaskWrite & { seq: number }) | undefined {
    const row = this.db.prepare('SELECT * FROM task_outbox ORDER BY seq LIMIT 1').get() as
      OutboxRow | undefined;
    if (row === undefined) return undefined;
    const base = { seq: row.seq, taskId: row.task_id, baseVersion: row.base_version, at: row.at };
    return row.kind === 'move'
      ? { ...base, kind: 'move', column: row.board_column ?? '', setBy: row.set_by ?? '' }
      : { ...base, kind: 'merged', commit: row.merged_commit ?? '' };
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM task_outbox').get() as { n: number }).n;
  }

  remove(seq: number): void {
    this.db.prepare('DELETE FROM task_outbox WHERE seq = ?').run(seq);
  }
}
