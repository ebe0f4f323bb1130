/** PostgreSQL migration 9: the log's rows by time, for its retention. */
export const name = "the log's rows by time, for its retention";

export const sql = `
CREATE INDEX workspace_events_at ON workspace_events (at);
`;
