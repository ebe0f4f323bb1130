import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEvent, type EventBody } from '../events/index.js';
import { openDb, type Db } from './db.js';
import { EventTextSearch } from './event-search.js';
import { EventStore } from './events.js';
import { SessionStore } from './sessions.js';
import { sessionRow } from '../../test/support/session-row.js';

let dir: string;
let db: Db;
let search: EventTextSearch;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-search-'));
  db = openDb(join(dir, 'baton.db'));
  search = new EventTextSearch(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function session(id: string, name: string, minute: number, ...bodies: EventBody[]): void {
  const sessions = new SessionStore(db);
  const project = sessions.ensureProject('/repo');
  sessions.insert(sessionRow({ id, project_id: project.id, name }), 'queued');
  const store = new EventStore(db, (sessionId, projection) =>
    sessions.applyProjection(sessionId, projection),
  );
  const row = sessions.get(id);
  if (row === undefined) throw new Error('no row');
  store.ingest(
    row,
    bodies.map((body, i) => makeEvent(i + 1, body, new Date(Date.UTC(2026, 0, 1, 0, minute, i)))),
    0,
  );
}

describe('the event text search', () => {
  it('finds words in messages, reasoning and tool output, case-insensitively, newest first', () => {
    session(
      's1',
      'alpha',
      0,
      { type: 'message.added', role: 'assistant', text: 'Renamed onChange to onUpdate' },
      { type: 'thinking.added', text: 'onUpdate reads better' },
    );
    session(
      's2',
      'beta',
      1,
      {
        type: 'tool.finished',
        toolId: 't',
        tool: 'Bash',
        ok: true,
        output: 'grep: ONUPDATE found in 3 files',
      },
      { type: 'state.changed', to: 'working' },
    );
    const hits = search.find('onupdate', 10);
    expect(hits.map((h) => `${h.name}#${h.seq} ${h.type}`)).toEqual([
      'beta#1 tool.finished',
      'alpha#2 thinking.added',
      'alpha#1 message.added',
    ]);
    expect(search.find('onupdate', 10, 's2').map((h) => h.name)).toEqual(['beta']);
    expect(search.find('working', 10)).toEqual([]);
  });

  it('matches quotes and backslashes as typed, not as stored in JSON', () => {
    session('s1', 'alpha', 0, { type: 'message.added', role: 'user', text: 'use "C:\\tmp" please' });
    expect(search.find('"C:\\tmp"', 10)).toHaveLength(1);
    expect(search.find('%', 10)).toEqual([]);
  });
});
