/**
 * opencode's own sessions, from its SQLite store (`$XDG_DATA_HOME/opencode/opencode.db`, opencode
 * 1.18), as normalized events (decision 376). A session is a `session` row; its `message` rows
 * (JSON in `data`: `role`, and for the model's `time.completed`) hold `part` rows: `text` (the
 * user's words or the model's), `reasoning` (thoughts) and `tool` (the call with its input and,
 * once done, its output and status). Step markers, patches, snapshots and any part type added
 * later are skipped and counted; a row whose `data` is not a JSON object is malformed, counted,
 * and passed over.
 *
 * The store is opencode's: it is opened read-only and only for the length of one import, and
 * read in WAL mode's snapshot, so opencode keeps writing while Baton reads and Baton writes
 * nothing there. Each session is remembered in `import_files` (as `<db>#<session id>`) with how
 * many of its messages were imported, so a second run reads only what is new; the last message
 * of a session, while the model is still writing it, waits for the next run. A session whose
 * messages became fewer (opencode's revert deletes them) is read again whole.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import Database from 'better-sqlite3';
import type { BatonEvent, EventBody } from '../../events/index.js';
import { InvalidInputError } from '../../shared/errors.js';
import type { Db } from '../../store/db.js';
import type { SearchIndex } from '../search-index.js';
import {
  BATON_OWNED,
  batonSessionOf,
  ensureSession,
  forget,
  newReport,
  storeEvents,
  type ImportReport,
} from './run.js';
import { obj, str } from './types.js';

/** How long a read waits for a lock opencode holds (only a WAL recovery or a non-WAL store takes one). */
const BUSY_TIMEOUT_MS = 2_000;

interface SessionRow {
  id: string;
  parent_id: string | null;
  directory: string;
  title: string;
  time_created: number;
}

interface Row {
  id: string;
  time_created: number;
  data: string;
}

interface Known {
  session_id: string | null;
  size: number;
  offset: number;
}

/** Imports every session in opencode's store under `dataDir` (its data folder, which holds `opencode.db`). */
export function importOpencode(db: Db, search: SearchIndex, dataDir: string): ImportReport {
  const path = join(dataDir, 'opencode.db');
  const report = newReport('opencode', path);
  if (!existsSync(path)) return report;
  const store = openStore(path);
  try {
    const sessions = new Set<string>();
    // One read transaction: every session is read from the same snapshot of the store.
    store.transaction(() => {
      const rows = store
        .prepare(
          'SELECT id, parent_id, directory, title, time_created FROM session ORDER BY time_created, id',
        )
        .all() as SessionRow[];
      for (const row of rows) {
        report.files++;
        // A subagent's session (the task tool's) is its parent's tool call; its parent is imported.
        if (row.parent_id !== null) {
          count(report.skipped, 'subagent session');
          continue;
        }
        importSession(db, search, store, `${path}#${row.id}`, row, report, sessions);
      }
    })();
    report.sessions = sessions.size;
    return report;
  } finally {
    store.close();
  }
}

function openStore(path: string): Database.Database {
  let store: Database.Database;
  try {
    store = new Database(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    const tables = store
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')",
      )
      .all();
    if (tables.length === 3) return store;
    store.close();
  } catch (error) {
    throw new InvalidInputError(
      `${path} cannot be read as opencode's database (${(error as Error).message}). Point Baton at opencode's data folder ($XDG_DATA_HOME/opencode).`,
    );
  }
  throw new InvalidInputError(
    `${path} is not opencode's database: it has no session, message and part tables. Point Baton at opencode's data folder ($XDG_DATA_HOME/opencode).`,
  );
}

function importSession(
  db: Db,
  search: SearchIndex,
  store: Database.Database,
  key: string,
  session: SessionRow,
  report: ImportReport,
  sessions: Set<string>,
): void {
  let known = db.prepare('SELECT session_id, size, offset FROM import_files WHERE path = ?').get(key) as
    Known | undefined;
  if (known?.session_id?.startsWith(BATON_OWNED) === true) {
    report.batonSessions++;
    return;
  }
  const messages = store
    .prepare('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id')
    .all(session.id) as Row[];
  if (known !== undefined && messages.length < known.offset) {
    forget(db, known.session_id);
    known = undefined;
  }
  const facts = { nativeId: session.id, cwd: session.directory, title: session.title };
  if (known === undefined) {
    const owner = batonSessionOf(db, 'opencode', key, facts);
    if (owner !== undefined) {
      report.batonSessions++;
      db.prepare(
        'INSERT OR REPLACE INTO import_files (path, vendor, session_id, size, offset) VALUES (?, ?, ?, ?, ?)',
      ).run(key, 'opencode', `${BATON_OWNED}${owner}`, messages.length, messages.length);
      return;
    }
  }
  const start = known?.offset ?? 0;
  if (start === messages.length) return;
  const parts = store.prepare('SELECT id, time_created, data FROM part WHERE message_id = ? ORDER BY id');
  const events: { ts: string; body: EventBody }[] = [];
  let end = start;
  for (const [i, row] of messages.entries()) {
    if (i < start) continue;
    const message = parseData(row.data);
    if (message === undefined) {
      report.malformed++;
      end = i + 1;
      continue;
    }
    // Only the last message can still be being written: a later one means opencode moved on.
    const last = i === messages.length - 1;
    if (last && message.role === 'assistant' && obj(message.time)?.completed === undefined) {
      report.unfinished++;
      break;
    }
    end = i + 1;
    const role = str(message.role);
    if (role !== 'user' && role !== 'assistant') {
      count(report.skipped, `message/${role ?? 'unknown'}`);
      continue;
    }
    for (const part of parts.all(row.id) as Row[]) {
      const data = parseData(part.data);
      if (data === undefined) {
        report.malformed++;
        continue;
      }
      const bodies = partEvents(role, data, session.directory);
      if (bodies === undefined) count(report.skipped, `part/${str(data.type) ?? 'unknown'}`);
      else for (const body of bodies) events.push({ ts: new Date(part.time_created).toISOString(), body });
    }
  }
  report.filesRead++;
  db.transaction(() => {
    const sessionId =
      known?.session_id ??
      ensureSession(db, 'opencode', key, facts, new Date(session.time_created).toISOString());
    if (sessionId !== null) {
      sessions.add(sessionId);
      const bodies = events.map((e) => ({ ts: e.ts, body: e.body as Omit<BatonEvent, 'seq' | 'v'> }));
      report.events += storeEvents(db, search, 'opencode', sessionId, bodies);
    }
    db.prepare(
      'INSERT OR REPLACE INTO import_files (path, vendor, session_id, size, offset) VALUES (?, ?, ?, ?, ?)',
    ).run(key, 'opencode', sessionId, messages.length, end);
  })();
}

/**
 * One part as events; undefined for a part that holds nothing for a transcript. The user's text
 * parts that opencode adds itself (`synthetic`) and Baton's own instructions are left out.
 */
function partEvents(
  role: 'user' | 'assistant',
  part: Record<string, unknown>,
  cwd: string,
): EventBody[] | undefined {
  const type = str(part.type);
  if (type === 'text') {
    const text = (str(part.text) ?? '').trim();
    if (text === '' || part.synthetic === true || text.startsWith('<baton_instructions>')) return [];
    return [{ type: 'message.added', role, text }];
  }
  if (type === 'reasoning' && role === 'assistant') {
    const text = (str(part.text) ?? '').trim();
    return text === '' ? [] : [{ type: 'thinking.added', text }];
  }
  if (type === 'tool' && role === 'assistant') return toolEvents(part, cwd);
  return undefined;
}

function toolEvents(part: Record<string, unknown>, cwd: string): EventBody[] {
  const toolId = str(part.callID) ?? str(part.id) ?? 'tool';
  const tool = str(part.tool) ?? 'tool';
  const state = obj(part.state) ?? {};
  const input = obj(state.input) ?? {};
  const file = str(input.filePath) ?? str(input.file_path) ?? str(input.path);
  const out: EventBody[] = [
    {
      type: 'tool.started',
      toolId,
      tool,
      input: str(input.command) ?? JSON.stringify(input),
      ...(file === undefined ? {} : { files: [inside(file, cwd)] }),
    },
  ];
  const status = str(state.status);
  if (status === 'completed' || status === 'error')
    out.push({
      type: 'tool.finished',
      toolId,
      tool,
      ok: status === 'completed',
      output: str(state.output) ?? str(state.error) ?? '',
    });
  return out;
}

/** A path relative to the session's folder when inside it, as Baton's own sessions name files. */
function inside(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

function parseData(data: string): Record<string, unknown> | undefined {
  try {
    return obj(JSON.parse(data));
  } catch {
    return undefined;
  }
}

function count(skipped: Record<string, number>, what: string): void {
  skipped[what] = (skipped[what] ?? 0) + 1;
}
