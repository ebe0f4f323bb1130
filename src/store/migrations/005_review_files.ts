/**
 * Review state of a file in a project's combined review (viewed, approved, changes requested),
 * tied to the file's content when it was set: a different content means the state no longer holds.
 */
export const sql = `
CREATE TABLE review_files (
  project_id TEXT NOT NULL REFERENCES projects(id),
  path TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('viewed', 'approved', 'changes_requested')),
  content_key TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (project_id, path)
);
`;
