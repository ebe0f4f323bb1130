import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEvent, type BatonEvent, type EventBody } from '../events/index.js';
import { openDb, type Db } from '../store/db.js';
import { EventStore } from '../store/events.js';
import { SessionStore } from '../store/sessions.js';
import { PendingApprovals } from './pending.js';
import { sessionRow } from '../../test/support/session-row.js';

let dir: string;
let db: Db;
let sessions: SessionStore;
let store: EventStore;
let seq = 0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-approvals-'));
  db = openDb(join(dir, 'baton.db'));
  sessions = new SessionStore(db);
  store = new EventStore(db, (id, p) => sessions.applyProjection(id, p));
  seq = 0;
  const project = sessions.ensureProject('/work/repo');
  sessions.insert(sessionRow({ id: 's1', project_id: project.id, name: 'a' }), 'queued');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function ingest(...bodies: EventBody[]): void {
  const events: BatonEvent[] = bodies.map((body) =>
    makeEvent(++seq, body, new Date(Date.UTC(2026, 0, 1, 0, 0, seq))),
  );
  store.ingest(sessions.get('s1')!, events, seq * 100);
}

const asked = (requestId: string): EventBody[] => [
  { type: 'approval.requested', requestId, tool: 'Bash', input: 'rm -rf build' },
  {
    type: 'state.changed',
    to: 'needs_input',
    reason: { kind: 'approval', requestId, tool: 'Bash', input: 'rm -rf build' },
  },
];

describe('which approval a session waits on, read from the approvals table', () => {
  it('is the unanswered request its state names, with what was asked', () => {
    const approvals = new PendingApprovals(db);
    expect(approvals.waiting(sessions.get('s1')!)).toBeUndefined();
    ingest({ type: 'state.changed', to: 'working' }, ...asked('r1'));
    expect(approvals.waiting(sessions.get('s1')!)).toMatchObject({
      request_id: 'r1',
      tool: 'Bash',
      input: 'rm -rf build',
      status: 'pending',
    });
    expect(approvals.pending('s1').map((row) => row.request_id)).toEqual(['r1']);
  });

  it('is none once answered, and none while the session waits on a question', () => {
    const approvals = new PendingApprovals(db);
    ingest({ type: 'state.changed', to: 'working' }, ...asked('r1'));
    ingest(
      { type: 'approval.resolved', requestId: 'r1', decision: 'allow' },
      { type: 'state.changed', to: 'working' },
    );
    expect(approvals.waiting(sessions.get('s1')!)).toBeUndefined();
    // A request left unanswered (its host died) is not what a later question waits on.
    ingest({ type: 'approval.requested', requestId: 'r2', tool: 'Bash', input: 'ls' });
    ingest({ type: 'state.changed', to: 'needs_input', reason: { kind: 'question', text: 'which?' } });
    expect(approvals.pending('s1').map((row) => row.request_id)).toEqual(['r2']);
    expect(approvals.waiting(sessions.get('s1')!)).toBeUndefined();
  });
});
