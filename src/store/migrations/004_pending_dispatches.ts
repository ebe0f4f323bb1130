/**
 * Dispatches under way: written before a worktree is made and removed in the same transaction
 * that records the session, so a supervisor killed in between leaves a note of what to undo.
 */
export const sql = `
CREATE TABLE pending_dispatches (
  session_id TEXT PRIMARY KEY,
  repo TEXT NOT NULL,
  worktree TEXT NOT NULL,
  branch TEXT NOT NULL,
  base_commit TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`;
