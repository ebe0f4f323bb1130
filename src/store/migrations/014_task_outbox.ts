/**
 * The automatic task writes (a session's move, a landing) of a shared repository not yet in the
 * shared store (decision 147): kept here so a restart during an outage sends them when the
 * store is back instead of losing them. `base_version` is the store's version of the task this
 * machine had when it queued the write: a move is dropped when the store's task changed since.
 */
export const sql = `
CREATE TABLE task_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('move', 'merged')),
  board_column TEXT,
  set_by TEXT,
  merged_commit TEXT,
  base_version INTEGER NOT NULL,
  at TEXT NOT NULL
);
`;
