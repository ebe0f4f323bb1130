/**
 * The merge journal (decision 166): each merge's intent and the last step it finished, written
 * before the step's effect can be seen, so a supervisor killed between two steps finds on its
 * next start what it was doing — as git keeps ORIG_HEAD and its lock files. `commit` is the
 * checked commit the base is to move to and `previous` where the base was; together they say,
 * against the base's tip, whether the merge landed. `result_json` is the finished merge's
 * result, which `baton merge` lists after a restart.
 */
export const sql = `
CREATE TABLE merge_journal (
  merge_id TEXT PRIMARY KEY,
  root TEXT NOT NULL,
  project TEXT NOT NULL,
  base TEXT NOT NULL,
  squash INTEGER NOT NULL,
  sessions_json TEXT NOT NULL,
  step TEXT NOT NULL CHECK (step IN ('queued', 'merging', 'checked', 'advanced', 'finished')),
  previous TEXT,
  [commit] TEXT,
  check_json TEXT,
  checkout TEXT,
  queued_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  result_json TEXT,
  finished_at TEXT
);
CREATE INDEX merge_journal_open ON merge_journal (step) WHERE step <> 'finished';
CREATE INDEX merge_journal_finished ON merge_journal (finished_at);
`;
