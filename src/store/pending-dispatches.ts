/** The pending_dispatches table: a worktree being made for a session not yet recorded. */
import type { Db } from './db.js';
import type { NewSession, SessionStore } from './sessions.js';
import type { SessionState } from '../events/index.js';

export interface PendingDispatch {
  session_id: string;
  repo: string;
  worktree: string;
  branch: string;
  base_commit: string;
  name: string;
  created_at: string;
}

export class PendingDispatchStore {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionStore,
  ) {}

  add(pending: Omit<PendingDispatch, 'created_at'>): void {
    this.db
      .prepare(
        'INSERT INTO pending_dispatches (session_id, repo, worktree, branch, base_commit, name, created_at) VALUES (@session_id, @repo, @worktree, @branch, @base_commit, @name, @created_at)',
      )
      .run({ ...pending, created_at: new Date().toISOString() });
  }

  /** Records the session and closes its pending dispatch, together or not at all. */
  commit(session: NewSession, state: SessionState): void {
    this.db.transaction(() => {
      this.sessions.insert(session, state);
      this.remove(session.id);
    })();
  }

  remove(sessionId: string): void {
    this.db.prepare('DELETE FROM pending_dispatches WHERE session_id = ?').run(sessionId);
  }

  list(): PendingDispatch[] {
    return this.db.prepare('SELECT * FROM pending_dispatches ORDER BY created_at').all() as PendingDispatch[];
  }
}
