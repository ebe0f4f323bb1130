export const sql = `
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  root TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  agent TEXT NOT NULL,
  prompt TEXT NOT NULL,
  model TEXT,
  permission_mode TEXT NOT NULL DEFAULT 'default',
  options_json TEXT NOT NULL DEFAULT '{}',
  state TEXT NOT NULL,
  state_reason_json TEXT,
  pinned INTEGER NOT NULL DEFAULT 0,
  branch TEXT NOT NULL,
  base_ref TEXT NOT NULL,
  base_commit TEXT NOT NULL,
  worktree TEXT NOT NULL,
  host_pid INTEGER,
  agent_session_id TEXT,
  last_seq INTEGER NOT NULL DEFAULT 0,
  ingested_offset INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  activity TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_event_at TEXT,
  removed_at TEXT,
  snapshot_ref TEXT
);
CREATE UNIQUE INDEX sessions_live_name ON sessions(project_id, name) WHERE removed_at IS NULL;
CREATE INDEX sessions_state ON sessions(state);

CREATE TABLE events (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  seq INTEGER NOT NULL,
  ts TEXT NOT NULL,
  type TEXT NOT NULL,
  body_json TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

CREATE TABLE approvals (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  request_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  input TEXT NOT NULL,
  reason TEXT,
  status TEXT NOT NULL DEFAULT 'pending',
  decision_reason TEXT,
  requested_seq INTEGER NOT NULL,
  requested_at TEXT NOT NULL,
  resolved_at TEXT,
  PRIMARY KEY (session_id, request_id)
);
`;
