/**
 * Routines (decision 116, "A routine's run is an ordinary session"): scheduled and triggered agents. A
 * routine's next run time is stored before a run starts, so a supervisor killed mid-fire neither loses
 * nor repeats it; every run, skipped and missed ones included, is a row of its history. `routine_seen`
 * remembers what a template already reported (a TODO made a task once stays made).
 */
export const sql = `
CREATE TABLE routines (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('cli', 'config')),
  paused INTEGER NOT NULL DEFAULT 0,
  next_run_at TEXT,
  token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, name)
);
CREATE TABLE routine_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  routine_id TEXT NOT NULL REFERENCES routines(id) ON DELETE CASCADE,
  trigger TEXT NOT NULL,
  due_at TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('running', 'findings', 'nothing', 'failed', 'skipped', 'missed')),
  cause TEXT,
  session_id TEXT,
  session_name TEXT,
  cost_usd REAL
);
CREATE INDEX routine_runs_routine ON routine_runs (routine_id, id);
CREATE INDEX routine_runs_session ON routine_runs (session_id);
CREATE TABLE routine_seen (
  routine_id TEXT NOT NULL REFERENCES routines(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  PRIMARY KEY (routine_id, key)
);
`;
