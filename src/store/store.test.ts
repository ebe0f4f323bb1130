import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEvent, type BatonEvent, type EventBody } from '../events/index.js';
import { openDb, type Db } from './db.js';
import { EventStore } from './events.js';
import { SessionStore, type NewSession } from './sessions.js';
import { WorkspaceEventStore } from './workspace-events.js';
import { sessionRow } from '../../test/support/session-row.js';

let dir: string;
let db: Db;
let sessions: SessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-store-'));
  db = openDb(join(dir, 'baton.db'));
  sessions = new SessionStore(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function addSession(id: string, name: string, root = '/work/repo'): NewSession {
  const project = sessions.ensureProject(root);
  const row: NewSession = sessionRow({ id, project_id: project.id, name });
  sessions.insert(row, 'queued');
  return row;
}

const events = (...bodies: EventBody[]): BatonEvent[] =>
  bodies.map((body, i) => makeEvent(i + 1, body, new Date(Date.UTC(2026, 0, 1, 0, 0, i))));

/** `count` assistant messages, m1, m2, …, as a log's events. */
const messages = (count: number): BatonEvent[] =>
  events(
    ...Array.from({ length: count }, (_, i): EventBody => ({
      type: 'message.added',
      role: 'assistant',
      text: `m${i + 1}`,
    })),
  );

/** Session s1's event store, with the seqs it announced, in order. */
function storeOfS1(): { store: EventStore; said: number[] } {
  addSession('s1', 'a');
  const said: number[] = [];
  const store = new EventStore(
    db,
    (id, p) => sessions.applyProjection(id, p),
    (_row, e) => said.push(e.seq),
  );
  return { store, said };
}

describe('the sessions store', () => {
  it('gives each repository root one project, with a unique folder-friendly name', () => {
    const a = sessions.ensureProject('/one/app');
    expect(sessions.ensureProject('/one/app').id).toBe(a.id);
    expect(sessions.ensureProject('/two/app').name).toBe('app-2');
    expect(sessions.ensureProject('/x/.hidden dir').name).toBe('hidden-dir');
  });

  it('takes a name only among live sessions, and lists live ones oldest first', () => {
    addSession('s1', 'a');
    addSession('s2', 'b');
    const project = sessions.findProjectByRoot('/work/repo');
    expect(sessions.nameTaken(project?.id ?? '', 'a')).toBe(true);
    sessions.markRemoved('s1', 'refs/baton/snapshots/a');
    expect(sessions.nameTaken(project?.id ?? '', 'a')).toBe(false);
    expect(sessions.listLive().map((s) => s.name)).toEqual(['b']);
    expect(sessions.get('s1')?.snapshot_ref).toBe('refs/baton/snapshots/a');
  });

  it('remembers a dangerous-mode acceptance per repository root', () => {
    expect(sessions.dangerousModeAccepted('/r')).toBe(false);
    sessions.acceptDangerousMode('/r');
    expect(sessions.dangerousModeAccepted('/r')).toBe(true);
    expect(sessions.dangerousModeAccepted('/r/sub')).toBe(false);
  });
});

describe('the events store', () => {
  it('stores events in the order written and projects state, usage, activity and the agent id', () => {
    addSession('s1', 'a');
    const stored: number[] = [];
    const store = new EventStore(
      db,
      (id, p) => sessions.applyProjection(id, p),
      (_row, e) => stored.push(e.seq),
    );
    const log = events(
      { type: 'state.changed', to: 'queued' },
      { type: 'agent.identified', agentSessionId: 'conv-1' },
      { type: 'state.changed', from: 'queued', to: 'working' },
      { type: 'usage.reported', inputTokens: 10, outputTokens: 5, costUsd: 0.5 },
      { type: 'tool.started', toolId: 't1', tool: 'Bash', input: 'npm test' },
    );
    expect(store.ingest(sessions.get('s1')!, log, 500).stored).toHaveLength(5);
    expect(stored).toEqual([1, 2, 3, 4, 5]);
    const row = sessions.get('s1')!;
    expect(row).toMatchObject({
      state: 'working',
      last_seq: 5,
      ingested_offset: 500,
      input_tokens: 10,
      output_tokens: 5,
      cost_usd: 0.5,
      agent_session_id: 'conv-1',
    });
    expect(row.activity).toMatch(/npm test/);
    expect(store.count('s1')).toBe(5);
  });

  it('stores each event under the seq it claims, never another; a seq already stored is a no-op', () => {
    addSession('s1', 'a');
    const store = new EventStore(db, (id, p) => sessions.applyProjection(id, p));
    const [one, two, three] = events(
      { type: 'turn.started' },
      { type: 'message.added', role: 'assistant', text: 'x' },
      { type: 'turn.completed', outcome: 'success' },
    );
    const result = store.ingest(sessions.get('s1')!, [one!, two!, { ...one!, seq: 2 }, three!], 300);
    expect(result.stored.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(store.list('s1').map((e) => [e.seq, e.type])).toEqual([
      [1, 'turn.started'],
      [2, 'message.added'],
      [3, 'turn.completed'],
    ]);
    expect(store.list('s1')[1]).toMatchObject({ text: 'x' });
    expect(sessions.get('s1')).toMatchObject({ last_seq: 3, ingested_offset: 300 });
  });

  it('stores a long batch whole and in order, many rows to a statement and the last few one by one (decision 466)', () => {
    const { store, said } = storeOfS1();
    const log = messages(123);
    // Each row's text as the caller gives it; one not given is the event written again.
    const texts = log.map((e) =>
      e.seq % 7 === 0 ? undefined : `${JSON.stringify(e).slice(0, -1)},"as":"written"}`,
    );
    expect(store.ingest(sessions.get('s1')!, log, 900, texts).stored.map((e) => e.seq)).toEqual(
      log.map((e) => e.seq),
    );
    expect(said).toEqual(log.map((e) => e.seq));
    const rows = db
      .prepare('SELECT seq, ts, type, body_json FROM events WHERE session_id = ? ORDER BY seq')
      .all('s1') as { seq: number; ts: string; type: string; body_json: string }[];
    expect(rows).toEqual(
      log.map((e, i) => ({ seq: e.seq, ts: e.ts, type: e.type, body_json: texts[i] ?? JSON.stringify(e) })),
    );
    expect(sessions.get('s1')).toMatchObject({ last_seq: 123, ingested_offset: 900 });
  });

  it('neither stores nor says again a row already there above the last seq it was handed (another writer’s)', () => {
    const { store, said } = storeOfS1();
    const log = messages(120);
    const stale = sessions.get('s1')!;
    store.ingest(stale, log.slice(0, 60), 400);
    said.length = 0;
    // The row read before the first batch was stored still says last seq 0.
    expect(store.ingest(stale, log, 800).stored.map((e) => e.seq)).toEqual(log.slice(60).map((e) => e.seq));
    expect(said).toEqual(log.slice(60).map((e) => e.seq));
    expect(store.count('s1')).toBe(120);
    expect(store.list('s1').map((e) => e.seq)).toEqual(log.map((e) => e.seq));
  });

  it('lists after a seq and finds the newest of given types', () => {
    addSession('s1', 'a');
    const store = new EventStore(db, (id, p) => sessions.applyProjection(id, p));
    store.ingest(
      sessions.get('s1')!,
      events(
        { type: 'message.added', role: 'assistant', text: 'one' },
        { type: 'turn.started' },
        { type: 'message.added', role: 'assistant', text: 'two' },
      ),
      100,
    );
    expect(store.list('s1', 1).map((e) => e.seq)).toEqual([2, 3]);
    expect(store.list('s1', 0, 1).map((e) => e.seq)).toEqual([1]);
    expect(store.latest('s1', ['message.added'], 5).map((e) => e.seq)).toEqual([3, 1]);
  });

  it('keeps the activity of the newest stored event that has one, across batches', () => {
    addSession('s1', 'a');
    const store = new EventStore(db, (id, p) => sessions.applyProjection(id, p));
    const [first, second, usage] = events(
      { type: 'tool.started', toolId: 't1', tool: 'Bash', input: 'npm test' },
      { type: 'message.added', role: 'assistant', text: 'all green' },
      { type: 'usage.reported', inputTokens: 1, outputTokens: 1 },
    );
    store.ingest(sessions.get('s1')!, [first!, second!, usage!], 30);
    expect(sessions.get('s1')!.activity).toMatch(/all green/);
    // A batch whose events word no activity, and one repeating an older event, leave it as it is.
    const [, , , later] = events(
      { type: 'turn.started' },
      { type: 'turn.started' },
      { type: 'turn.started' },
      { type: 'usage.reported', inputTokens: 1, outputTokens: 1 },
    );
    store.ingest(sessions.get('s1')!, [first!, later!], 40);
    expect(sessions.get('s1')).toMatchObject({ last_seq: 4 });
    expect(sessions.get('s1')!.activity).toMatch(/all green/);
  });

  it('keeps approvals as rows with their resolution', () => {
    addSession('s1', 'a');
    const store = new EventStore(db, (id, p) => sessions.applyProjection(id, p));
    store.ingest(
      sessions.get('s1')!,
      events(
        { type: 'approval.requested', requestId: 'r1', tool: 'Bash', input: 'rm -rf build' },
        { type: 'approval.resolved', requestId: 'r1', decision: 'deny', reason: 'no' },
      ),
      10,
    );
    expect(
      db.prepare('SELECT status, decision_reason FROM approvals WHERE request_id = ?').get('r1'),
    ).toEqual({ status: 'denied', decision_reason: 'no' });
  });
});

describe('the workspace events store', () => {
  it('numbers events globally and pages through them', () => {
    const store = new WorkspaceEventStore(db);
    expect(store.lastSeq()).toBe(0);
    for (let i = 0; i < 5; i++) store.append('t', 'x.happened', { i });
    expect(store.list(2, 2)).toEqual([
      { seq: 3, ts: 't', type: 'x.happened', data: { i: 2 } },
      { seq: 4, ts: 't', type: 'x.happened', data: { i: 3 } },
    ]);
    expect(store.lastSeq()).toBe(5);
  });
});
