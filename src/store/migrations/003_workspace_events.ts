/** The workspace bus: events of every domain, one global sequence (see src/bus). */
export const sql = `
CREATE TABLE workspace_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ts TEXT NOT NULL,
  type TEXT NOT NULL,
  data_json TEXT NOT NULL
);
CREATE INDEX workspace_events_type ON workspace_events (type, seq);
`;
