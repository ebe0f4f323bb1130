/** PostgreSQL migration 7: the watchdog's alerts, shown on every machine. */
export const name = "the watchdog's alerts, shown on every machine";

export const sql = `
CREATE TABLE alerts (
  id text PRIMARY KEY,
  raised_at text NOT NULL,
  rule text NOT NULL,
  session_id text,
  session_name text,
  project text,
  message text NOT NULL,
  evidence_json text NOT NULL,
  action text NOT NULL,
  dedupe_key text NOT NULL,
  acknowledged_at text,
  machine text NOT NULL
);
CREATE UNIQUE INDEX alerts_open_key ON alerts (dedupe_key) WHERE acknowledged_at IS NULL;
CREATE INDEX alerts_session ON alerts (session_id);
CREATE INDEX alerts_raised ON alerts (raised_at DESC, id DESC);
`;
