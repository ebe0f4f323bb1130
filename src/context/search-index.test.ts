import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { makeEvent, type EventBody } from '../events/index.js';
import { sessionPaths } from '../shared/paths.js';
import { Ingestor } from '../sessions/ingest.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { SearchIndex } from './search-index.js';
import { sessionRow } from '../../test/support/session-row.js';

let home: string;
let db: Db;
let store: SessionStore;
let ingestor: Ingestor;
const ID = 'sess-1';

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'baton-search-'));
  db = openDb(join(home, 'baton.db'));
  store = new SessionStore(db);
  ingestor = new Ingestor(home, db, store, new WorkspaceBus(db));
  const project = store.ensureProject('/repo');
  store.insert(
    sessionRow({ id: ID, project_id: project.id, name: 'w', agent: 'claude', worktree: '/w' }),
    'queued',
  );
  mkdirSync(sessionPaths(home, ID).dir, { recursive: true });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

const write = (seq: number, body: EventBody): void =>
  appendFileSync(sessionPaths(home, ID).events, JSON.stringify(makeEvent(seq, body)) + '\n');

describe('the search index', () => {
  it('is written just after the ingesting transaction: an event stored is an event found by the next search, and once only', () => {
    write(1, { type: 'tool.started', toolId: 't', tool: 'Bash', input: 'npm test' });
    write(2, {
      type: 'tool.finished',
      toolId: 't',
      tool: 'Bash',
      ok: false,
      output: 'FAIL onChange keeps its signature',
    });
    ingestor.ingest(ID);
    const hits = ingestor.search.search('onchange signature');
    expect(hits).toEqual([
      expect.objectContaining({
        sessionId: ID,
        seq: 2,
        kind: 'tool_output',
        agent: 'claude',
        source: 'event',
      }),
    ]);
    ingestor.ingest(ID);
    expect(ingestor.search.size()).toBe(2);
  });

  it('rolls back with the events when the transaction fails, so the index never holds what the store does not', () => {
    write(1, { type: 'message.added', role: 'assistant', text: 'phantom words' });
    db.exec('CREATE TRIGGER refuse BEFORE UPDATE ON sessions BEGIN SELECT RAISE(ABORT, "refused"); END');
    expect(() => ingestor.ingest(ID)).toThrow(/refused/);
    expect(ingestor.search.search('phantom')).toEqual([]);
    db.exec('DROP TRIGGER refuse');
    ingestor.ingest(ID);
    expect(ingestor.search.search('phantom')).toHaveLength(1);
  });

  it('ranks by BM25, filters by kind and time, and indexes decisions and notes by id', () => {
    write(1, { type: 'message.added', role: 'assistant', text: 'tenant tenant tenant cache' });
    write(2, { type: 'thinking.added', text: 'a cache for each tenant maybe' });
    ingestor.ingest(ID);
    const search = ingestor.search;
    expect(search.search('tenant').map((h) => h.seq)).toEqual([1, 2]);
    expect(search.search('tenant', { kinds: ['reasoning'] }).map((h) => h.seq)).toEqual([2]);
    expect(search.search('tenant', { since: '2999-01-01T00:00:00Z' })).toEqual([]);
    search.indexDocument('decision', 'd1', 'Key the cache by tenant', { taskId: '7' });
    search.indexDocument('decision', 'd1', 'Key the cache by tenant id, never user', { taskId: '7' });
    const decisions = search.search('never', { task: '7' });
    expect(decisions).toEqual([expect.objectContaining({ source: 'decision', docId: 'd1', taskId: '7' })]);
    search.removeDocument('decision', 'd1');
    expect(search.search('never')).toEqual([]);
  });

  it('is fed after the ingesting transaction, off its path, and catches up at the next start after a crash before it', () => {
    write(1, { type: 'message.added', role: 'assistant', text: 'stored before the crash' });
    write(2, { type: 'tool.started', toolId: 't', tool: 'Bash', input: 'npm run lint' });
    ingestor.ingest(ID);
    // Stored, not yet indexed: the supervisor is killed before the event loop comes round.
    expect((db.prepare('SELECT count(*) AS n FROM search_docs').get() as { n: number }).n).toBe(0);
    const path = db.name;
    db.close();
    db = openDb(path);
    const index = new SearchIndex(db);
    expect(index.catchUp()).toBe(1);
    expect(index.search('crash').map((h) => h.seq)).toEqual([1]);
    expect(index.search('lint').map((h) => h.seq)).toEqual([2]);
    // Caught up: the watermark says so, and nothing is indexed twice.
    expect(new SearchIndex(db).catchUp()).toBe(0);
    expect(index.size()).toBe(2);
  });

  it('indexes on its own once the event loop comes round, in batches, moving the watermark', async () => {
    for (let seq = 1; seq <= 12; seq++)
      write(seq, { type: 'message.added', role: 'assistant', text: `line ${seq}` });
    ingestor.ingest(ID);
    await new Promise((resolve) => setImmediate(resolve));
    const count = (db.prepare('SELECT count(*) AS n FROM search_docs').get() as { n: number }).n;
    expect(count).toBe(12);
    expect(new SearchIndex(db).catchUp()).toBe(0);
  });

  it('stops for good when its database is closed with events still to index, rather than spinning', async () => {
    const own = openDb(join(home, 'other.db'));
    const index = new SearchIndex(own);
    const flush = vi.spyOn(index, 'flush');
    index.eventsStored(ID);
    own.close();
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    // One look finds the database closed and gives up (the next start catches up); before, it
    // looked again on every turn of the event loop, for ever, and kept its process alive.
    expect(flush).toHaveBeenCalledTimes(1);
  });

  it('back-fills events stored before the index existed, once', () => {
    write(1, { type: 'message.added', role: 'assistant', text: 'older than the index' });
    ingestor.ingest(ID);
    db.exec('DELETE FROM search_fts; DELETE FROM search_docs;');
    const index = new SearchIndex(db);
    expect(index.search('older')).toEqual([]);
    expect(index.backfill()).toBe(1);
    expect(index.search('older')).toHaveLength(1);
    expect(index.backfill()).toBe(0);
  });
});
