/**
 * Context that travels between sessions and vendors: one normalized transcript per session
 * (Baton's own or imported from Claude Code's and Codex's files), exported as redacted
 * Markdown; full-text search (SQLite FTS5, BM25) indexed as events are ingested; and handoff
 * packs that start the next session, of any agent, with what the last one decided and learned.
 */
export {
  ContextService,
  type ContextServiceOptions,
  type ContextSessions,
  type ElsewhereTranscript,
  type HandoffLink,
  type HandoffRequest,
  type NamedHit,
  type SearchRequest,
} from './service.js';
export { SearchIndex, type DocumentMeta, type SearchFilters, type SearchHit } from './search-index.js';
export { SEARCH_KINDS, type SearchKind } from './extract.js';
export {
  transcriptFromEvents,
  redactTranscript,
  estimateTokens,
  type Transcript,
  type TranscriptEntry,
} from './transcript.js';
export { renderMarkdown } from './markdown.js';
export { redactSecrets } from './redact.js';
export {
  buildHandoffPack,
  DEFAULT_BUDGET_TOKENS,
  type HandoffPack,
  type PackInput,
  type RecordedDecision,
} from './pack.js';
export { importTranscripts, type ImportReport } from './import/run.js';
export { NoTranscriptError, PackBudgetError, ImportedSessionNotFoundError } from './errors.js';
export { ftsQuery, parseSince } from './query.js';
