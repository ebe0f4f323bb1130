/** Sessions imported from vendors' own files: found by id or by a prefix of the vendor's id, read as transcripts. */
import type { BatonEvent } from '../events/index.js';
import type { Db } from '../store/db.js';
import type { TranscriptHead } from './transcript.js';

export interface ImportedSessionRow {
  id: string;
  vendor: 'claude' | 'codex' | 'gemini' | 'opencode';
  native_id: string;
  cwd: string | null;
  project_id: string | null;
  title: string | null;
  started_at: string;
  last_seq: number;
}

/** The imported session `ref` names (its id, or at least 6 characters of the vendor's id), if exactly one. */
export function findImported(db: Db, ref: string): ImportedSessionRow | undefined {
  const exact = db.prepare('SELECT * FROM imported_sessions WHERE id = ?').get(ref) as
    ImportedSessionRow | undefined;
  if (exact !== undefined || ref.length < 6) return exact;
  const bare = ref.replace(/^(claude|codex|gemini|opencode)-/, '');
  const rows = db
    .prepare("SELECT * FROM imported_sessions WHERE native_id LIKE ? ESCAPE '\\' LIMIT 2")
    .all(`${bare.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as ImportedSessionRow[];
  return rows.length === 1 ? rows[0] : undefined;
}

export function importedEvents(db: Db, sessionId: string): BatonEvent[] {
  const rows = db
    .prepare('SELECT body_json FROM imported_events WHERE session_id = ? ORDER BY seq')
    .all(sessionId) as { body_json: string }[];
  return rows.map((r) => JSON.parse(r.body_json) as BatonEvent);
}

export function importedHead(row: ImportedSessionRow, firstPrompt: string | undefined): TranscriptHead {
  return {
    sessionId: row.id,
    name: row.id,
    agent: row.vendor,
    origin: row.vendor,
    prompt: firstPrompt ?? row.title ?? '',
    cwd: row.cwd,
    startedAt: row.started_at,
  };
}
