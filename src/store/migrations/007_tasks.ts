/**
 * Tasks (decision 71, "Tasks are their own domain beside sessions"): the unit of work above sessions. A
 * task's number is its id, global across projects, so `baton task show 3` is never ambiguous. `rank`
 * orders the cards inside a column; `column_set_by` says whether a person (`hand`) or a linked session
 * (`session`, `merge`) put the card there (decision 72). A session started from a task records it in
 * `sessions.task_id`.
 */
export const sql = `
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL REFERENCES projects(id),
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  scope_json TEXT NOT NULL DEFAULT '[]',
  tracker TEXT,
  board_column TEXT NOT NULL DEFAULT 'backlog',
  column_set_by TEXT NOT NULL DEFAULT 'hand',
  rank INTEGER NOT NULL DEFAULT 0,
  review TEXT NOT NULL DEFAULT 'none',
  merged_commit TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX tasks_project ON tasks (project_id, board_column, rank);

CREATE TABLE task_dependencies (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  after_id INTEGER NOT NULL REFERENCES tasks(id),
  PRIMARY KEY (task_id, after_id)
) WITHOUT ROWID;

ALTER TABLE sessions ADD COLUMN task_id INTEGER;
CREATE INDEX sessions_task ON sessions (task_id) WHERE task_id IS NOT NULL;
`;
