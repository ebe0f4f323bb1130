/**
 * Allow rules (decision 83, "Allow rules live in SQLite"): approvals the user said always to give —
 * every call of a tool, or every command starting with a pattern — in one repository or in all
 * (`project_root` NULL). Revoking deletes the row. The gate still wins over them: an approval the gate
 * asked for is never answered by a rule.
 */
export const sql = `
CREATE TABLE allow_rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_root TEXT,
  tool TEXT,
  pattern TEXT,
  source TEXT NOT NULL,
  created_at TEXT NOT NULL,
  CHECK (tool IS NOT NULL OR pattern IS NOT NULL)
);
CREATE INDEX allow_rules_project ON allow_rules (project_root);
`;
