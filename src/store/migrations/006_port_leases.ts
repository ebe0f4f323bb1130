/**
 * Ports leased to sessions (decision 61, "Ports are leased in SQLite"). The port is the key, so no port
 * is ever leased to two sessions at once; a lease goes with its session (completed or removed).
 */
export const sql = `
CREATE TABLE port_leases (
  port INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  name TEXT NOT NULL,
  leased_at TEXT NOT NULL
);
CREATE INDEX port_leases_session ON port_leases (session_id);
`;
