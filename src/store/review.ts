/** The review_files table: per-file review state of a project's combined reviews. */
import type { Db } from './db.js';

export type ReviewFileState = 'viewed' | 'approved' | 'changes_requested';

export interface ReviewFileRow {
  project_id: string;
  path: string;
  state: ReviewFileState;
  content_key: string;
  updated_at: string;
}

export class ReviewFileStore {
  constructor(private readonly db: Db) {}

  /** The project's rows for these paths, by path. */
  get(projectId: string, paths: readonly string[]): Map<string, ReviewFileRow> {
    const rows = this.db
      .prepare('SELECT * FROM review_files WHERE project_id = ?')
      .all(projectId) as ReviewFileRow[];
    const wanted = new Set(paths);
    return new Map(rows.filter((r) => wanted.has(r.path)).map((r) => [r.path, r]));
  }

  set(projectId: string, path: string, state: ReviewFileState, contentKey: string, now: Date): void {
    this.db
      .prepare(
        `INSERT INTO review_files (project_id, path, state, content_key, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (project_id, path) DO UPDATE SET state = excluded.state, content_key = excluded.content_key, updated_at = excluded.updated_at`,
      )
      .run(projectId, path, state, contentKey, now.toISOString());
  }

  clear(projectId: string, path: string): boolean {
    return (
      this.db.prepare('DELETE FROM review_files WHERE project_id = ? AND path = ?').run(projectId, path)
        .changes > 0
    );
  }
}
