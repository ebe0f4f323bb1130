/**
 * Learnt memory footprints (decision 308): each finished session's peak process-tree memory, by
 * agent kind, so a restarted supervisor admits by what it measured rather than the defaults. Only
 * the recent sessions of each kind count; older rows are pruned as new ones come.
 */
export const sql = `
CREATE TABLE memory_footprints (
  session_id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  peak_mb REAL NOT NULL,
  samples INTEGER NOT NULL,
  ended_at TEXT NOT NULL
);
CREATE INDEX memory_footprints_agent ON memory_footprints (agent, ended_at);
`;
