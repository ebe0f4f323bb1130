/**
 * Search, transcripts and handoff (src/context). `search_fts` holds the text (FTS5, BM25); each
 * row's filters sit in `search_docs` under the same rowid, so a filter is an indexed join rather
 * than a column FTS5 would tokenize. Sessions imported from vendors' own transcript files get
 * their own tables (they have no worktree, branch or host). Existing events are indexed on the
 * supervisor's first start (src/context/backfill.ts), by the same code as new ones.
 */
export const sql = `
CREATE VIRTUAL TABLE search_fts USING fts5(
  body,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3'
);

CREATE TABLE search_docs (
  rowid INTEGER PRIMARY KEY,
  -- 'event' (a Baton session's), 'imported' (a native transcript's), 'decision', 'note'
  source TEXT NOT NULL,
  -- message, reasoning, tool_input, tool_output, question, answer, error, decision, note
  kind TEXT NOT NULL,
  session_id TEXT,
  seq INTEGER,
  doc_id TEXT,
  project_id TEXT,
  agent TEXT,
  task_id TEXT,
  ts TEXT NOT NULL
);
CREATE UNIQUE INDEX search_docs_event ON search_docs (session_id, seq) WHERE seq IS NOT NULL;
CREATE UNIQUE INDEX search_docs_doc ON search_docs (kind, doc_id) WHERE doc_id IS NOT NULL;
CREATE INDEX search_docs_ts ON search_docs (ts);

CREATE TABLE search_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE imported_sessions (
  id TEXT PRIMARY KEY,
  vendor TEXT NOT NULL,
  native_id TEXT NOT NULL,
  cwd TEXT,
  project_id TEXT,
  title TEXT,
  started_at TEXT NOT NULL,
  last_seq INTEGER NOT NULL DEFAULT 0,
  UNIQUE (vendor, native_id)
);

CREATE TABLE imported_events (
  session_id TEXT NOT NULL REFERENCES imported_sessions(id),
  seq INTEGER NOT NULL,
  ts TEXT NOT NULL,
  type TEXT NOT NULL,
  body_json TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

CREATE TABLE import_files (
  path TEXT PRIMARY KEY,
  vendor TEXT NOT NULL,
  session_id TEXT,
  size INTEGER NOT NULL,
  offset INTEGER NOT NULL
);

CREATE TABLE handoffs (
  id TEXT PRIMARY KEY,
  from_session TEXT NOT NULL,
  to_session TEXT NOT NULL,
  agent TEXT NOT NULL,
  task TEXT NOT NULL,
  budget_tokens INTEGER NOT NULL,
  pack_tokens INTEGER NOT NULL,
  source_tokens INTEGER NOT NULL,
  pack_text TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX handoffs_from ON handoffs (from_session);
CREATE INDEX handoffs_to ON handoffs (to_session);
`;
