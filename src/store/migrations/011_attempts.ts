/**
 * Attempt groups (decision 105, "Best-of and fan-out are attempt groups"): several sessions started as
 * one piece of work. A best-of group runs one prompt N times (any mix of agents) for a person to
 * compare and pick from; a fan-out splits a list of items into batches, one session per batch, a failed
 * batch retried once. A member row is one session of the group: its attempt or batch number (`slot`)
 * and, for a retried batch, its try (1, then 2).
 */
export const sql = `
CREATE TABLE attempt_groups (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('best_of', 'fanout')),
  project_id TEXT NOT NULL REFERENCES projects(id),
  prompt TEXT NOT NULL,
  instructions TEXT,
  task_id TEXT,
  batch_size INTEGER,
  state TEXT NOT NULL,
  picked_session_id TEXT,
  merge_id TEXT,
  message TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE attempt_members (
  group_id TEXT NOT NULL REFERENCES attempt_groups(id),
  slot INTEGER NOT NULL,
  try INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  items_json TEXT,
  archived_snapshot TEXT,
  archived_at TEXT,
  summary_json TEXT,
  PRIMARY KEY (group_id, slot, try)
);
CREATE INDEX attempt_members_session ON attempt_members (session_id);
`;
