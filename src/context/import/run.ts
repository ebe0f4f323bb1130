/**
 * Importing vendors' own transcript files: idempotent and incremental. Each file's size and
 * the offset of its last complete line are remembered, so a second run reads only what was
 * appended, and a line still being written (no newline yet) is read next time. A line that is
 * not JSON is counted as malformed; a line type the parser does not know is counted as skipped;
 * neither stops the import. A file that shrank was rewritten: its session is read again whole.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EVENT_SCHEMA_VERSION, type BatonEvent } from '../../events/index.js';
import type { Db } from '../../store/db.js';
import type { SearchIndex } from '../search-index.js';
import { parseClaudeLine } from './claude.js';
import { parseCodexLine } from './codex.js';
import { parseGeminiLine } from './gemini.js';
import type { LineParser, ParseState, SessionFacts, Vendor } from './types.js';

export interface ImportReport {
  vendor: Vendor;
  root: string;
  /** Transcript files found. */
  files: number;
  /** Of those, files with new lines this run. */
  filesRead: number;
  sessions: number;
  events: number;
  /** Lines that held nothing for a transcript, by their type. */
  skipped: Record<string, number>;
  /** Lines that are not JSON objects. */
  malformed: number;
  /** Files whose last line is not finished yet (read next time). */
  unfinished: number;
  /** Files of sessions Baton ran itself (already its own sessions): not imported again. */
  batonSessions: number;
}

/** What `import_files.session_id` holds for a file of a session Baton ran: passed over for good. */
export const BATON_OWNED = 'baton:';

/** The vendors whose sessions are files of lines (opencode's are rows of a database: ./opencode.ts). */
export type FileVendor = Exclude<Vendor, 'opencode'>;

const PARSERS: Record<FileVendor, LineParser> = {
  claude: parseClaudeLine,
  codex: parseCodexLine,
  gemini: parseGeminiLine,
};

/** Whether a file under the vendor's root is one of its session transcripts. */
function isTranscript(vendor: FileVendor, path: string, name: string): boolean {
  if (!name.endsWith('.jsonl')) return false;
  if (vendor === 'codex') return name.startsWith('rollout-');
  // Gemini CLI: the main sessions in a project's chats/ (a subagent's own file, in a folder below, is not).
  if (vendor === 'gemini') return name.startsWith('session-') && dirname(path).endsWith('/chats');
  return true;
}

/**
 * What a vendor's folder says about a session its lines do not: Gemini CLI records no folder in
 * its session file, but keeps the project's folder in `.project_root` beside its chats/.
 */
function folderFacts(vendor: FileVendor, path: string): SessionFacts {
  if (vendor !== 'gemini') return {};
  try {
    const root = readFileSync(join(dirname(dirname(path)), '.project_root'), 'utf8').trim();
    return root === '' ? {} : { cwd: root };
  } catch {
    return {};
  }
}

/** Imports every transcript file of `vendor` under `root` (Claude's `projects/`, Codex's `sessions/`, Gemini CLI's `tmp/`). */
export function importTranscripts(
  db: Db,
  search: SearchIndex,
  vendor: FileVendor,
  root: string,
): ImportReport {
  const report = newReport(vendor, root);
  const sessions = new Set<string>();
  for (const path of transcriptFiles(vendor, root)) {
    report.files++;
    try {
      importFile(db, search, vendor, path, report, sessions);
    } catch (error) {
      // A file removed or made unreadable since the folder was listed is passed over, and counted.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'EACCES' && code !== 'EISDIR') throw error;
      report.skipped['unreadable file'] = (report.skipped['unreadable file'] ?? 0) + 1;
    }
  }
  report.sessions = sessions.size;
  return report;
}

export function newReport(vendor: Vendor, root: string): ImportReport {
  return {
    vendor,
    root,
    files: 0,
    filesRead: 0,
    sessions: 0,
    events: 0,
    skipped: {},
    malformed: 0,
    unfinished: 0,
    batonSessions: 0,
  };
}

function transcriptFiles(vendor: FileVendor, root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  // Symbolic links are not followed (a loop, or a link out of the folder, is not walked), and
  // a folder that cannot be read is passed over.
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && isTranscript(vendor, path, entry.name)) out.push(path);
    }
  };
  walk(root);
  return out.sort();
}

interface FileRow {
  session_id: string | null;
  size: number;
  offset: number;
}

function importFile(
  db: Db,
  search: SearchIndex,
  vendor: FileVendor,
  path: string,
  report: ImportReport,
  sessions: Set<string>,
): void {
  const size = statSync(path).size;
  let known = db.prepare('SELECT session_id, size, offset FROM import_files WHERE path = ?').get(path) as
    FileRow | undefined;
  if (known !== undefined && size < known.offset) {
    forget(db, known.session_id);
    known = undefined;
  }
  if (known?.session_id?.startsWith(BATON_OWNED) === true) {
    report.batonSessions++;
    return;
  }
  const start = known?.offset ?? 0;
  if (known !== undefined && size === known.size && start === size) return;
  const text = readFrom(path, start, size);
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) report.unfinished++;
  const lines = text
    .slice(0, end)
    .split('\n')
    .filter((l) => l.trim() !== '');
  const state: ParseState = { tools: new Map() };
  const facts: SessionFacts = {};
  const events: { ts: string; body: BatonEvent | Omit<BatonEvent, 'seq' | 'v'> }[] = [];
  for (const raw of lines) {
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      report.malformed++;
      continue;
    }
    if (typeof line !== 'object' || line === null || Array.isArray(line)) {
      report.malformed++;
      continue;
    }
    const parsed = PARSERS[vendor](line as Record<string, unknown>, state);
    if (parsed.facts !== undefined) {
      facts.nativeId ??= parsed.facts.nativeId;
      facts.cwd ??= parsed.facts.cwd;
      facts.title ??= parsed.facts.title;
    }
    if (parsed.skipped !== undefined)
      report.skipped[parsed.skipped] = (report.skipped[parsed.skipped] ?? 0) + 1;
    for (const e of parsed.events) events.push({ ts: e.ts, body: e.body as Omit<BatonEvent, 'seq' | 'v'> });
  }
  facts.cwd ??= folderFacts(vendor, path).cwd;
  const owner = known === undefined ? batonSessionOf(db, vendor, path, facts) : undefined;
  if (owner !== undefined) {
    report.batonSessions++;
    db.prepare(
      'INSERT OR REPLACE INTO import_files (path, vendor, session_id, size, offset) VALUES (?, ?, ?, ?, ?)',
    ).run(path, vendor, `${BATON_OWNED}${owner}`, size, size);
    return;
  }
  report.filesRead++;
  db.transaction(() => {
    const sessionId = known?.session_id ?? ensureSession(db, vendor, path, facts, events[0]?.ts);
    if (sessionId !== null) {
      sessions.add(sessionId);
      report.events += storeEvents(db, search, vendor, sessionId, events);
    }
    db.prepare(
      'INSERT OR REPLACE INTO import_files (path, vendor, session_id, size, offset) VALUES (?, ?, ?, ?, ?)',
    ).run(path, vendor, sessionId, size, start + Buffer.byteLength(text.slice(0, end)));
  })();
}

function readFrom(path: string, start: number, size: number): string {
  const length = size - start;
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The Baton session that wrote this vendor file, if one did (decision 232): the vendor's id is one
 * Baton recorded for its agent, or the file's folder is a Baton session's worktree. Its events are
 * Baton's already; importing them again would show every hit twice.
 */
export function batonSessionOf(
  db: Db,
  vendor: Vendor,
  path: string,
  facts: SessionFacts,
): string | undefined {
  const nativeId = facts.nativeId ?? /([0-9a-f]{8}-[0-9a-f-]{27,})\.jsonl$/.exec(path)?.[1];
  const row = db
    .prepare(
      `SELECT id FROM sessions WHERE (agent = ? AND agent_session_id IS NOT NULL AND agent_session_id = ?)
         OR (? IS NOT NULL AND (worktree = ? OR ? LIKE worktree || '/%')) LIMIT 1`,
    )
    .get(vendor, nativeId ?? null, facts.cwd ?? null, facts.cwd ?? null, facts.cwd ?? null) as
    { id: string } | undefined;
  return row?.id;
}

/** The imported session of a file's first lines (null while the file has said nothing yet). */
export function ensureSession(
  db: Db,
  vendor: Vendor,
  path: string,
  facts: SessionFacts,
  firstTs: string | undefined,
): string | null {
  const nativeId = facts.nativeId ?? /([0-9a-f]{8}-[0-9a-f-]{27,})\.jsonl$/.exec(path)?.[1];
  if (nativeId === undefined) return null;
  const id = `${vendor}-${nativeId}`;
  const project =
    facts.cwd === undefined
      ? undefined
      : (db.prepare('SELECT id FROM projects WHERE root = ?').get(facts.cwd) as { id: string } | undefined);
  db.prepare(
    `INSERT INTO imported_sessions (id, vendor, native_id, cwd, project_id, title, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET cwd = coalesce(imported_sessions.cwd, excluded.cwd), title = coalesce(imported_sessions.title, excluded.title)`,
  ).run(
    id,
    vendor,
    nativeId,
    facts.cwd ?? null,
    project?.id ?? null,
    facts.title ?? null,
    firstTs ?? new Date().toISOString(),
  );
  return id;
}

export function storeEvents(
  db: Db,
  search: SearchIndex,
  vendor: Vendor,
  sessionId: string,
  events: { ts: string; body: Omit<BatonEvent, 'seq' | 'v'> }[],
): number {
  const session = db
    .prepare('SELECT last_seq, project_id FROM imported_sessions WHERE id = ?')
    .get(sessionId) as { last_seq: number; project_id: string | null };
  const insert = db.prepare(
    'INSERT INTO imported_events (session_id, seq, ts, type, body_json) VALUES (?, ?, ?, ?, ?)',
  );
  let seq = session.last_seq;
  for (const { ts, body } of events) {
    const event = { v: EVENT_SCHEMA_VERSION, ...body, seq: ++seq, ts } as BatonEvent;
    insert.run(sessionId, seq, ts, event.type, JSON.stringify(event));
    search.indexEvent({ sessionId, projectId: session.project_id, agent: vendor, source: 'imported' }, event);
  }
  db.prepare('UPDATE imported_sessions SET last_seq = ? WHERE id = ?').run(seq, sessionId);
  return events.length;
}

/** A rewritten file's session, emptied so it is read again from the start. */
export function forget(db: Db, sessionId: string | null): void {
  if (sessionId === null) return;
  db.transaction(() => {
    const rows = db
      .prepare("SELECT rowid FROM search_docs WHERE source = 'imported' AND session_id = ?")
      .all(sessionId) as { rowid: number }[];
    for (const { rowid } of rows) {
      db.prepare('DELETE FROM search_fts WHERE rowid = ?').run(rowid);
      db.prepare('DELETE FROM search_docs WHERE rowid = ?').run(rowid);
    }
    db.prepare('DELETE FROM imported_events WHERE session_id = ?').run(sessionId);
    db.prepare('UPDATE imported_sessions SET last_seq = 0 WHERE id = ?').run(sessionId);
  })();
}
