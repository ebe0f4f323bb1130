/** Folders where the user has accepted, interactively, that agents may run without asking. */
export const sql = `
CREATE TABLE dangerous_mode_acceptances (
  root TEXT PRIMARY KEY,
  accepted_at TEXT NOT NULL
);
`;
