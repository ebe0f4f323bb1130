import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../store/db.js';
import { SearchIndex } from '../search-index.js';
import { importOpencode } from './opencode.js';

/** opencode 1.18's tables that hold a conversation, as its own migrations create them. */
const SCHEMA = `
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text,
  slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL,
  share_url text, summary_additions integer, summary_deletions integer, summary_files integer,
  summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL,
  tokens_output integer DEFAULT 0 NOT NULL, tokens_reasoning integer DEFAULT 0 NOT NULL,
  tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL, revert text,
  permission text, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
`;

let root: string;
let dataDir: string;
let db: Db;
let search: SearchIndex;
let store: Database.Database;
let clock: number;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-import-opencode-'));
  dataDir = join(root, 'share', 'opencode');
  mkdirSync(dataDir, { recursive: true });
  db = openDb(join(root, 'baton.db'));
  search = new SearchIndex(db);
  store = new Database(join(dataDir, 'opencode.db'));
  store.pragma('journal_mode = WAL');
  store.exec(SCHEMA);
  clock = Date.parse('2026-01-01T00:00:00Z');
});
afterEach(() => {
  store.close();
  db.close();
  rmSync(root, { recursive: true, force: true });
});

function addSession(id: string, directory = '/home/dev/app', parent: string | null = null): void {
  store
    .prepare(
      `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
       VALUES (?, 'p', ?, 'slug', ?, 'A session', '1.18.33', ?, ?)`,
    )
    .run(id, parent, directory, clock, clock);
}

let nextId = 0;
function addMessage(session: string, data: unknown, parts: readonly unknown[]): string {
  const id = `msg_${String(++nextId).padStart(4, '0')}`;
  const at = ++clock;
  store
    .prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)')
    .run(id, session, at, at, typeof data === 'string' ? data : JSON.stringify(data));
  for (const part of parts)
    store
      .prepare(
        'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        `prt_${String(++nextId).padStart(4, '0')}`,
        id,
        session,
        ++clock,
        clock,
        typeof part === 'string' ? part : JSON.stringify(part),
      );
  return id;
}

const user = (text: string) => [{ role: 'user' }, [{ type: 'text', text }]] as const;
const done = { role: 'assistant', time: { created: 1, completed: 2 } };
const tool = (name: string, input: unknown, status = 'completed', output = 'ok') => ({
  type: 'tool',
  tool: name,
  callID: `call_${name}`,
  state: { status, input, output },
});

describe('importing opencode’s own sessions from its database', () => {
  it('reads messages, thoughts and tool calls; skips step markers and patches, counted', () => {
    addSession('ses_a');
    addMessage('ses_a', ...user('add a tenant cache'));
    addMessage('ses_a', done, [
      { type: 'step-start', snapshot: 'x' },
      { type: 'reasoning', text: 'Key by tenant.' },
      tool('write', { filePath: '/home/dev/app/src/cache.ts', content: 'export {}\n' }),
      { type: 'step-finish', reason: 'tool-calls' },
      { type: 'patch', files: ['/home/dev/app/src/cache.ts'] },
    ]);
    addMessage('ses_a', done, [
      tool('bash', { command: 'npm test', description: 'test' }, 'error', undefined),
      { type: 'text', text: 'Decided: the cache is keyed by tenant id.' },
    ]);
    const report = importOpencode(db, search, dataDir);
    expect(report).toMatchObject({ vendor: 'opencode', files: 1, filesRead: 1, sessions: 1, events: 7 });
    expect(report.skipped).toEqual({ 'part/step-start': 1, 'part/step-finish': 1, 'part/patch': 1 });
    const events = (
      db
        .prepare("SELECT body_json FROM imported_events WHERE session_id = 'opencode-ses_a' ORDER BY seq")
        .all() as {
        body_json: string;
      }[]
    ).map((r) => JSON.parse(r.body_json) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual([
      'message.added',
      'thinking.added',
      'tool.started',
      'tool.finished',
      'tool.started',
      'tool.finished',
      'message.added',
    ]);
    expect(events[2]).toMatchObject({ tool: 'write', files: ['src/cache.ts'] });
    expect(events[4]).toMatchObject({ tool: 'bash', input: 'npm test' });
    expect(events[5]).toMatchObject({ ok: false });
    const row = db.prepare("SELECT cwd, title FROM imported_sessions WHERE id = 'opencode-ses_a'").get();
    expect(row).toEqual({ cwd: '/home/dev/app', title: 'A session' });
    expect(search.search('tenant', {}).some((h) => h.sessionId === 'opencode-ses_a')).toBe(true);
  });

  it('is incremental: the message the model is still writing waits, and nothing is read twice', () => {
    addSession('ses_a');
    addMessage('ses_a', ...user('first'));
    const writing = addMessage('ses_a', { role: 'assistant', time: { created: 1 } }, [
      { type: 'text', text: 'half an ans' },
    ]);
    const first = importOpencode(db, search, dataDir);
    expect(first).toMatchObject({ events: 1, unfinished: 1 });
    store.prepare('UPDATE message SET data = ? WHERE id = ?').run(JSON.stringify(done), writing);
    store
      .prepare('UPDATE part SET data = ? WHERE message_id = ?')
      .run(JSON.stringify({ type: 'text', text: 'a whole answer' }), writing);
    expect(importOpencode(db, search, dataDir)).toMatchObject({ events: 1, unfinished: 0 });
    expect(importOpencode(db, search, dataDir)).toMatchObject({ events: 0, filesRead: 0 });
    // A later message means opencode moved on: a message it never completed is read, not waited for.
    addMessage('ses_a', { role: 'assistant', time: { created: 1 } }, [{ type: 'text', text: 'cut off' }]);
    addMessage('ses_a', ...user('again'));
    expect(importOpencode(db, search, dataDir)).toMatchObject({ events: 2, unfinished: 0 });
    expect(search.search('whole answer', {})).toHaveLength(1);
  });

  it('reports and passes over malformed rows, unknown roles, and subagent sessions', () => {
    addSession('ses_a');
    addSession('ses_child', '/home/dev/app', 'ses_a');
    addMessage('ses_a', '{"role": "user", "time": {', []);
    addMessage('ses_a', '[1, 2]', []);
    addMessage('ses_a', { role: 'user' }, ['not json', { type: 'text', text: 'still read' }]);
    addMessage('ses_a', { role: 'system' }, [{ type: 'text', text: 'x' }]);
    addMessage('ses_a', done, [{ type: 'hologram' }, { type: 'text', text: 'fine' }]);
    addMessage('ses_child', done, [{ type: 'text', text: 'inside the subagent' }]);
    const report = importOpencode(db, search, dataDir);
    expect(report).toMatchObject({ files: 2, sessions: 1, events: 2, malformed: 3 });
    expect(report.skipped).toEqual({ 'subagent session': 1, 'message/system': 1, 'part/hologram': 1 });
    expect(importOpencode(db, search, dataDir)).toMatchObject({ events: 0, malformed: 0 });
  });

  it('passes over the sessions Baton ran itself: by its agent session id, or by its worktree', () => {
    db.prepare("INSERT INTO projects (id, root, name, created_at) VALUES ('p1', '/r', 'r', 't')").run();
    const insert = db.prepare(
      `INSERT INTO sessions (id, name, project_id, agent, prompt, state, worktree, branch, base_ref, base_commit, created_at, updated_at, agent_session_id)
       VALUES (?, ?, 'p1', 'opencode', 'x', 'completed', ?, 'b', 'main', 'c', 't', 't', ?)`,
    );
    insert.run('s1', 'one', '/state/worktrees/r/one', 'ses_ran');
    insert.run('s2', 'two', '/state/worktrees/r/two', null);
    addSession('ses_ran', '/elsewhere');
    addSession('ses_tree', '/state/worktrees/r/two');
    addSession('ses_mine');
    for (const id of ['ses_ran', 'ses_tree', 'ses_mine']) addMessage(id, ...user(`hello from ${id}`));
    expect(importOpencode(db, search, dataDir)).toMatchObject({ batonSessions: 2, sessions: 1, events: 1 });
    addMessage('ses_ran', ...user('more'));
    expect(importOpencode(db, search, dataDir)).toMatchObject({ batonSessions: 2, events: 0 });
  });

  it('reads the store read-only while opencode is writing to it, and leaves opencode free to go on', () => {
    addSession('ses_a');
    addMessage('ses_a', ...user('committed before'));
    store.pragma('wal_checkpoint(TRUNCATE)');
    const main = join(dataDir, 'opencode.db');
    const before = readFileSync(main);
    expect(importOpencode(db, search, dataDir)).toMatchObject({ events: 1 });
    // Baton wrote nothing into the store: its file and its write-ahead log are as opencode left them.
    expect(readFileSync(main).equals(before)).toBe(true);
    expect(statSync(`${main}-wal`).size).toBe(0);
    // opencode holds its write lock with a message not yet committed: the import neither waits
    // nor fails, and sees only what was committed; opencode then commits as if Baton were not there.
    store.exec('BEGIN IMMEDIATE');
    addMessage('ses_a', ...user('not committed yet'));
    expect(importOpencode(db, search, dataDir)).toMatchObject({ events: 0 });
    store.exec('COMMIT');
    expect(importOpencode(db, search, dataDir)).toMatchObject({ events: 1 });
    expect(search.search('committed', {})).toHaveLength(2);
  });

  it('finds nothing where opencode has no database, and refuses a file that is not one', () => {
    rmSync(dataDir, { recursive: true, force: true });
    expect(importOpencode(db, search, dataDir)).toMatchObject({ files: 0, events: 0 });
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'opencode.db'), 'not a database at all, just some text\n'.repeat(200));
    expect(() => importOpencode(db, search, dataDir)).toThrow(/cannot be read as opencode's database/);
    rmSync(join(dataDir, 'opencode.db'));
    const other = new Database(join(dataDir, 'opencode.db'));
    other.exec('CREATE TABLE notes (text TEXT)');
    other.close();
    expect(() => importOpencode(db, search, dataDir)).toThrow(/is not opencode's database/);
  });
});
