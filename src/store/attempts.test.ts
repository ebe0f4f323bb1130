import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptStore } from './attempts.js';
import { openDb, type Db } from './db.js';
import { SessionStore } from './sessions.js';

const folders: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function store(): { attempts: AttemptStore; projectId: string } {
  const folder = mkdtempSync(join(tmpdir(), 'baton-attempts-store-'));
  folders.push(folder);
  const db = openDb(join(folder, 'baton.db'));
  dbs.push(db);
  let now = Date.parse('2026-01-01T00:00:00Z');
  const attempts = new AttemptStore(db, () => new Date((now += 1000)));
  return { attempts, projectId: new SessionStore(db).ensureProject('/repo').id };
}

describe('AttemptStore', () => {
  it('keeps a group with its members, finds a group by prefix and a member by session', () => {
    const { attempts, projectId } = store();
    attempts.create(
      {
        id: 'abcd1234',
        kind: 'best_of',
        project_id: projectId,
        prompt: 'p',
        instructions: null,
        task_id: 'T-1',
        batch_size: null,
        state: 'open',
      },
      [
        { group_id: 'abcd1234', slot: 1, try: 1, session_id: 's1', agent: 'claude', items_json: null },
        { group_id: 'abcd1234', slot: 2, try: 1, session_id: 's2', agent: 'codex', items_json: null },
      ],
    );
    attempts.create(
      {
        id: 'abzz0000',
        kind: 'fanout',
        project_id: projectId,
        prompt: 'q',
        instructions: null,
        task_id: null,
        batch_size: 10,
        state: 'running',
      },
      [],
    );
    expect(attempts.get('abcd1234')).toMatchObject({
      kind: 'best_of',
      task_id: 'T-1',
      project_root: '/repo',
      state: 'open',
    });
    expect(attempts.byPrefix('abc').map((g) => g.id)).toEqual(['abcd1234']);
    expect(attempts.byPrefix('ab').map((g) => g.id)).toEqual(['abcd1234', 'abzz0000']);
    expect(attempts.memberOf('s2')).toMatchObject({ group_id: 'abcd1234', slot: 2, agent: 'codex' });
    expect(attempts.list({ kind: 'fanout' }).map((g) => g.id)).toEqual(['abzz0000']);
    expect(attempts.inStates(['running']).map((g) => g.id)).toEqual(['abzz0000']);
  });

  it('records a pick, its outcome, archived members and their kept figures', () => {
    const { attempts, projectId } = store();
    attempts.create(
      {
        id: 'g1',
        kind: 'best_of',
        project_id: projectId,
        prompt: 'p',
        instructions: null,
        task_id: null,
        batch_size: null,
        state: 'open',
      },
      [{ group_id: 'g1', slot: 1, try: 1, session_id: 's1', agent: 'scripted', items_json: null }],
    );
    attempts.setState('g1', 'picking', { picked_session_id: 's1', merge_id: 'm1' });
    attempts.setState('g1', 'landed', { message: 'landed' });
    expect(attempts.get('g1')).toMatchObject({
      state: 'landed',
      picked_session_id: 's1',
      merge_id: 'm1',
      message: 'landed',
    });
    attempts.saveSummary('s1', { tree: 't', diff: { files: ['a'] } });
    attempts.markArchived('s1', 'refs/baton/snapshots/x');
    expect(attempts.members('g1')[0]).toMatchObject({
      archived_snapshot: 'refs/baton/snapshots/x',
      archived_at: expect.stringMatching(/^2026-01-01T00:00:0\d\.000Z$/),
      summary_json: '{"tree":"t","diff":{"files":["a"]}}',
    });
  });

  it('refuses a second try numbered like the first (a batch is retried once)', () => {
    const { attempts, projectId } = store();
    attempts.create(
      {
        id: 'f1',
        kind: 'fanout',
        project_id: projectId,
        prompt: 'p',
        instructions: null,
        task_id: null,
        batch_size: 1,
        state: 'running',
      },
      [{ group_id: 'f1', slot: 1, try: 1, session_id: 's1', agent: 'scripted', items_json: '["a"]' }],
    );
    attempts.addMember({
      group_id: 'f1',
      slot: 1,
      try: 2,
      session_id: 's2',
      agent: 'scripted',
      items_json: '["a"]',
    });
    expect(() =>
      attempts.addMember({
        group_id: 'f1',
        slot: 1,
        try: 2,
        session_id: 's3',
        agent: 'scripted',
        items_json: '["a"]',
      }),
    ).toThrow(/UNIQUE/);
  });
});
