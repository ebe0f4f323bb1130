/**
 * Other machines' workspace events (decision 135, "The workspace bus across machines"): stored beside
 * this machine's own with the machine they came from and their seq in the shared log (unique, so
 * reading one twice stores it once). They take a local seq on arrival, so a stream's cursor stays one
 * number. `relay_cursors` keeps how far this machine's own events were relayed, and where it began
 * reading the others'.
 */
export const sql = `
ALTER TABLE workspace_events ADD COLUMN machine TEXT;
ALTER TABLE workspace_events ADD COLUMN log_seq INTEGER;
CREATE UNIQUE INDEX workspace_events_log_seq ON workspace_events (log_seq) WHERE log_seq IS NOT NULL;
CREATE TABLE relay_cursors (
  name TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
);
`;
