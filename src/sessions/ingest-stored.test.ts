/**
 * What ingestion stores for each event (decision 410): the log's line as written when the check
 * kept every key it has, else the checked event written again — never a line holding something
 * the check dropped, and never a secret in the search index.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { makeEvent, parseEventLine } from '../events/index.js';
import { EVERY_FIELD } from '../events/testing.js';
import { setLogFile } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { EventLogWriter } from './event-log.js';
import { Ingestor } from './ingest.js';
import { sessionRow } from '../../test/support/session-row.js';

let home: string;
let db: Db;
let store: SessionStore;
let ingestor: Ingestor;
const ID = 'sess-1';

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'baton-ingest-stored-'));
  setLogFile(join(home, 'supervisor.log'));
  db = openDb(join(home, 'baton.db'));
  store = new SessionStore(db);
  ingestor = new Ingestor(home, db, store, new WorkspaceBus(db));
  const project = store.ensureProject('/repo');
  store.insert(sessionRow({ id: ID, project_id: project.id, name: 'w', worktree: '/w' }), 'queued');
  mkdirSync(sessionPaths(home, ID).dir, { recursive: true });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

const write = (text: string): void => appendFileSync(sessionPaths(home, ID).events, text);
const bodiesStored = (): string[] =>
  (
    db.prepare('SELECT body_json FROM events WHERE session_id = ? ORDER BY seq').all(ID) as {
      body_json: string;
    }[]
  ).map((r) => r.body_json);

describe('what ingestion stores', () => {
  it('stores each line the host wrote as written, and it reads back as the checked event, key for key', () => {
    const writer = new EventLogWriter(sessionPaths(home, ID).events, 0);
    writer.appendAll(EVERY_FIELD);
    writer.close();
    const lines = bodiesOfLog();
    expect(ingestor.ingest(ID)).toBe(EVERY_FIELD.length);
    // The text stored is the line itself (on the old path: the event written again, keys in the
    // schema's order), and it parses back to the very event the check let through.
    expect(bodiesStored()).toEqual(lines);
    expect(ingestor.events.list(ID)).toEqual(lines.map((l) => parseEventLine(l)));
    // Nothing a kind carries is lost: every key the host wrote is there.
    for (const [i, event] of ingestor.events.list(ID).entries())
      expect(Object.keys(event).sort()).toEqual(Object.keys(JSON.parse(lines[i]!) as object).sort());
  });

  it('stores the checked event, not the line, when the line holds a key the check drops, at any depth', () => {
    const extra = (seq: number, body: Record<string, unknown>): string =>
      JSON.stringify({ ...makeEvent(seq, { type: 'turn.started' }), ...body }) + '\n';
    const plain = extra(4, { type: 'message.added', role: 'assistant', text: 'plain' });
    write(
      extra(1, { type: 'message.added', role: 'assistant', text: 'hi', smuggled: 'top' }) +
        extra(2, {
          type: 'state.changed',
          to: 'needs_input',
          reason: { kind: 'question', text: 'q', smuggled: 'nested' },
        }) +
        extra(3, {
          type: 'limits.reported',
          windows: [{ name: '5h', usedPercent: 1, smuggled: 'in an array' }],
        }) +
        plain,
    );
    expect(ingestor.ingest(ID)).toBe(4);
    const bodies = bodiesStored();
    for (const body of bodies.slice(0, 3)) {
      expect(body).not.toContain('smuggled');
      // Written again from the checked event: it still parses to it.
      expect(JSON.stringify(JSON.parse(body))).toBe(body);
    }
    expect(ingestor.events.list(ID).map((e) => e.type)).toEqual([
      'message.added',
      'state.changed',
      'limits.reported',
      'message.added',
    ]);
    expect(ingestor.events.list(ID)[1]).toMatchObject({ reason: { kind: 'question', text: 'q' } });
    // A line with nothing dropped is stored as written, beside them.
    expect(bodies[3]).toBe(plain.trimEnd());
  });

  it('stores only the whole event after a torn write, never the fragment before it', () => {
    const cut = JSON.stringify(makeEvent(2, { type: 'message.added', role: 'assistant', text: 'cut short' }));
    const whole = JSON.stringify(makeEvent(2, { type: 'turn.started' }));
    write(JSON.stringify(makeEvent(1, { type: 'state.changed', to: 'queued' })) + '\n');
    write(cut.slice(0, 40) + whole + '\n');
    expect(ingestor.ingest(ID)).toBe(2);
    expect(bodiesStored()[1]).toBe(whole);
  });

  it('redacts a secret an event holds before it is indexed for search, from a line stored as written', () => {
    const secret = 'sk-ant-api03-' + 'A'.repeat(40);
    const writer = new EventLogWriter(sessionPaths(home, ID).events, 0);
    writer.appendAll([
      { type: 'state.changed', to: 'queued' },
      { type: 'message.added', role: 'assistant', text: `the key is ${secret} for the deploy` },
    ]);
    writer.close();
    expect(ingestor.ingest(ID)).toBe(2);
    // The store keeps what the session said (as its log does); the index never holds the secret.
    expect(bodiesStored()[1]).toContain(secret);
    ingestor.search.flush();
    const indexed = (db.prepare('SELECT body FROM search_fts').all() as { body: string }[]).map(
      (r) => r.body,
    );
    expect(indexed.some((t) => t.includes('the key is') && t.includes('[REDACTED:anthropic-key]'))).toBe(
      true,
    );
    expect(indexed.some((t) => t.includes(secret))).toBe(false);
  });
});

/** The log's lines, without their newlines. */
function bodiesOfLog(): string[] {
  return readFileSync(sessionPaths(home, ID).events, 'utf8').trimEnd().split('\n');
}
