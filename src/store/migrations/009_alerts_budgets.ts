/**
 * The watchdog's tables (decision 89, "The watchdog sits beside the sessions"): budgets, the alerts it
 * raised, and the workspace events a desktop notification was already sent for (so a restart never
 * notifies twice).
 */
export const sql = `
CREATE TABLE budgets (
  scope TEXT PRIMARY KEY,
  window_ms INTEGER,
  limit_usd REAL NOT NULL,
  warn_ratio REAL NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  raised_at TEXT NOT NULL,
  rule TEXT NOT NULL,
  session_id TEXT,
  session_name TEXT,
  project TEXT,
  message TEXT NOT NULL,
  evidence_json TEXT NOT NULL,
  action TEXT NOT NULL,
  dedupe_key TEXT NOT NULL,
  acknowledged_at TEXT
);
CREATE UNIQUE INDEX alerts_open_key ON alerts (dedupe_key) WHERE acknowledged_at IS NULL;
CREATE INDEX alerts_session ON alerts (session_id);
CREATE TABLE notifications_sent (
  seq INTEGER PRIMARY KEY,
  sent_at TEXT NOT NULL
);
`;
