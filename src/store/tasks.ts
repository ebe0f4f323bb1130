/**
 * The tasks and task_dependencies tables (decision 71, "Tasks are their own domain beside sessions").
 * Multi-row writes run in one transaction.
 */
import { boardMark } from './board-mark.js';
import type { Db } from './db.js';
import { TaskOutbox } from './task-outbox.js';

export type { QueuedTaskWrite } from './task-outbox.js';

export interface TaskRow {
  id: number;
  project_id: string;
  title: string;
  description: string;
  scope_json: string;
  tracker: string | null;
  board_column: string;
  column_set_by: string;
  rank: number;
  review: string;
  merged_commit: string | null;
  created_at: string;
  updated_at: string;
}

export interface TaskWithProject extends TaskRow {
  project_name: string;
  project_root: string;
}

export type NewTask = Pick<
  TaskRow,
  'project_id' | 'title' | 'description' | 'scope_json' | 'tracker' | 'board_column'
>;
export type TaskFields = Partial<
  Pick<TaskRow, 'title' | 'description' | 'scope_json' | 'tracker' | 'review'>
>;

const COLUMNS = [
  'project_id',
  'title',
  'description',
  'scope_json',
  'tracker',
  'board_column',
  'column_set_by',
  'rank',
  'review',
  'merged_commit',
  'created_at',
  'updated_at',
] as const;

const SELECT =
  'SELECT t.*, p.name AS project_name, p.root AS project_root FROM tasks t JOIN projects p ON p.id = t.project_id';

export class TaskStore {
  /** A shared repository's automatic writes waiting for the shared store. */
  readonly outbox: TaskOutbox;

  constructor(private readonly db: Db) {
    this.outbox = new TaskOutbox(db);
  }

  /**
   * Adds the task at the end of its column, with its dependencies; returns its number (`id` when
   * given: in a shared workspace every machine draws numbers from one sequence).
   */
  insert(task: NewTask, after: readonly number[], now: string, id?: number): number {
    return this.db.transaction(() => {
      const rank = this.nextRank(task.project_id, task.board_column);
      const { lastInsertRowid } = this.db
        .prepare(
          `INSERT INTO tasks (id, project_id, title, description, scope_json, tracker, board_column, column_set_by, rank, created_at, updated_at)
           VALUES (@id, @project_id, @title, @description, @scope_json, @tracker, @board_column, 'hand', @rank, @now, @now)`,
        )
        .run({ ...task, id: id ?? null, rank, now });
      const added = Number(lastInsertRowid);
      this.setDependencies(added, after);
      return added;
    })();
  }

  /**
   * Writes a task as the shared store holds it (its id, column and rank included), inserted or
   * replaced in place; false when it was so already.
   */
  put(row: TaskRow): boolean {
    const before = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(row.id) as TaskRow | undefined;
    if (before !== undefined && COLUMNS.every((key) => before[key] === row[key])) return false;
    const values = Object.fromEntries(['id', ...COLUMNS].map((key) => [key, row[key as keyof TaskRow]]));
    this.db
      .prepare(
        `INSERT INTO tasks (id, ${COLUMNS.join(', ')}) VALUES (@id, ${COLUMNS.map((key) => `@${key}`).join(', ')})
         ON CONFLICT (id) DO UPDATE SET ${COLUMNS.map((key) => `${key} = excluded.${key}`).join(', ')}`,
      )
      .run(values);
    return true;
  }

  /** Moves whenever a task's card may have changed (see board-mark.ts). */
  boardMark(): string {
    return boardMark(this.db);
  }

  /** Runs `work` in one transaction. */
  transact(work: () => void): void {
    this.db.transaction(work)();
  }

  get(id: number): TaskWithProject | undefined {
    return this.db.prepare(`${SELECT} WHERE t.id = ?`).get(id) as TaskWithProject | undefined;
  }

  /** A project's tasks (or every task), by column and then place in it. */
  list(projectId?: string): TaskWithProject[] {
    const order = 'ORDER BY t.board_column, t.rank, t.id';
    if (projectId !== undefined)
      return this.db.prepare(`${SELECT} WHERE t.project_id = ? ${order}`).all(projectId) as TaskWithProject[];
    return this.db.prepare(`${SELECT} ${order}`).all() as TaskWithProject[];
  }

  count(projectId: string): number {
    return (
      this.db.prepare('SELECT COUNT(*) AS n FROM tasks WHERE project_id = ?').get(projectId) as { n: number }
    ).n;
  }

  update(id: number, fields: TaskFields, now: string): void {
    const keys = Object.keys(fields) as (keyof TaskFields)[];
    if (keys.length === 0) return;
    const set = keys.map((key) => `${key} = @${key}`).join(', ');
    this.db.prepare(`UPDATE tasks SET ${set}, updated_at = @now WHERE id = @id`).run({ ...fields, id, now });
  }

  /** Puts the task at `position` (0-based; past the end: last) in `column`, closing the gap it left. */
  move(id: number, column: string, setBy: string, position: number | undefined, now: string): void {
    this.db.transaction(() => {
      const task = this.get(id);
      if (task === undefined) return;
      const ids = (
        this.db
          .prepare(
            'SELECT id FROM tasks WHERE project_id = ? AND board_column = ? AND id != ? ORDER BY rank, id',
          )
          .all(task.project_id, column, id) as { id: number }[]
      ).map((r) => r.id);
      ids.splice(Math.min(position ?? ids.length, ids.length), 0, id);
      const rank = this.db.prepare('UPDATE tasks SET rank = ? WHERE id = ?');
      ids.forEach((taskId, index) => rank.run(index, taskId));
      this.db
        .prepare('UPDATE tasks SET board_column = ?, column_set_by = ?, updated_at = ? WHERE id = ?')
        .run(column, setBy, now, id);
    })();
  }

  /** 0-based place of the task in its column. */
  position(task: TaskRow): number {
    const row = this.db
      .prepare(
        'SELECT COUNT(*) AS n FROM tasks WHERE project_id = ? AND board_column = ? AND (rank < ? OR (rank = ? AND id < ?))',
      )
      .get(task.project_id, task.board_column, task.rank, task.rank, task.id) as { n: number };
    return row.n;
  }

  setMerged(id: number, commit: string, now: string): void {
    this.db.prepare('UPDATE tasks SET merged_commit = ?, updated_at = ? WHERE id = ?').run(commit, now, id);
  }

  dependencies(id: number): number[] {
    return (
      this.db
        .prepare('SELECT after_id FROM task_dependencies WHERE task_id = ? ORDER BY after_id')
        .all(id) as { after_id: number }[]
    ).map((r) => r.after_id);
  }

  /** Every dependency edge, of one project or all: for the board, built in one read. */
  allEdges(projectId?: string): { task_id: number; after_id: number }[] {
    if (projectId !== undefined) return this.edges(projectId);
    return this.db
      .prepare('SELECT task_id, after_id FROM task_dependencies ORDER BY task_id, after_id')
      .all() as { task_id: number; after_id: number }[];
  }

  /** Every dependency edge of a project, for the cycle check. */
  edges(projectId: string): { task_id: number; after_id: number }[] {
    return this.db
      .prepare(
        'SELECT d.task_id, d.after_id FROM task_dependencies d JOIN tasks t ON t.id = d.task_id WHERE t.project_id = ? ORDER BY d.task_id, d.after_id',
      )
      .all(projectId) as { task_id: number; after_id: number }[];
  }

  /** Tasks that wait for `id`. */
  dependents(id: number): number[] {
    return (
      this.db
        .prepare('SELECT task_id FROM task_dependencies WHERE after_id = ? ORDER BY task_id')
        .all(id) as { task_id: number }[]
    ).map((r) => r.task_id);
  }

  setDependencies(id: number, after: readonly number[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM task_dependencies WHERE task_id = ?').run(id);
      const insert = this.db.prepare(
        'INSERT OR IGNORE INTO task_dependencies (task_id, after_id) VALUES (?, ?)',
      );
      for (const other of after) insert.run(id, other);
    })();
  }

  /**
   * Removes the task, and the edges of tasks that waited for it (the caller refuses while an
   * unlanded one does; a removal the shared store made must go through here even then); its
   * sessions no longer name it.
   */
  delete(id: number): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM task_dependencies WHERE task_id = ? OR after_id = ?').run(id, id);
      this.db.prepare('UPDATE sessions SET task_id = NULL WHERE task_id = ?').run(id);
      this.db.prepare('DELETE FROM tasks WHERE id = ?').run(id);
    })();
  }

  private nextRank(projectId: string, column: string): number {
    const row = this.db
      .prepare('SELECT MAX(rank) AS max FROM tasks WHERE project_id = ? AND board_column = ?')
      .get(projectId, column) as { max: number | null };
    return (row.max ?? -1) + 1;
  }
}
