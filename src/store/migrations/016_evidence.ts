/**
 * Each session's evidence (decision 290): the tree of its last recorded turn and the checks its
 * agent ran in it (claims), Baton's last run of the check with the exact tree it ran on, and the
 * red→green run of its new tests against the base. Kept here, not in the supervisor's memory, so
 * `ls`, the board and the page say verified or failing after a restart, and a merge can find the
 * run of the tree it is about to land (`evidence_tree`).
 */
export const sql = `
CREATE TABLE session_evidence (
  session_id TEXT PRIMARY KEY,
  tree TEXT,
  claims_json TEXT NOT NULL DEFAULT '[]',
  evidence_tree TEXT,
  evidence_json TEXT,
  red_green_json TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX session_evidence_tree ON session_evidence (evidence_tree);
`;
