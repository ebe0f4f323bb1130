import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from './db.js';
import { SessionStore } from './sessions.js';
import { TaskStore } from './tasks.js';

let dir: string;
let db: Db;
let tasks: TaskStore;
let project: string;
const NOW = '2026-11-24T06:00:00.000Z';

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-task-store-'));
  db = openDb(join(dir, 'baton.db'));
  tasks = new TaskStore(db);
  project = new SessionStore(db).ensureProject('/repo').id;
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const add = (title: string, after: number[] = []): number =>
  tasks.insert(
    { project_id: project, title, description: '', scope_json: '[]', tracker: null, board_column: 'backlog' },
    after,
    NOW,
  );

describe('the task store', () => {
  it('removes a task that a landed task waited for, and that edge with it (as the shared store removes it)', () => {
    const a = add('a');
    const b = add('b', [a]);
    tasks.setMerged(b, 'c0ffee', NOW);
    tasks.delete(a);
    expect(tasks.get(a)).toBeUndefined();
    expect(tasks.dependencies(b)).toEqual([]);
  });

  it('keeps the automatic writes waiting for the shared store in order, across a reopen', () => {
    const a = add('a');
    tasks.outbox.add({
      kind: 'move',
      taskId: a,
      column: 'review',
      setBy: 'session',
      baseVersion: 3,
      at: NOW,
    });
    tasks.outbox.add({ kind: 'merged', taskId: a, commit: 'c0ffee', baseVersion: 4, at: NOW });
    db.close();
    db = openDb(join(dir, 'baton.db'));
    tasks = new TaskStore(db);
    const first = tasks.outbox.first()!;
    expect(first).toMatchObject({
      kind: 'move',
      taskId: a,
      column: 'review',
      setBy: 'session',
      baseVersion: 3,
      at: NOW,
    });
    tasks.outbox.remove(first.seq);
    expect(tasks.outbox.first()).toMatchObject({
      kind: 'merged',
      taskId: a,
      commit: 'c0ffee',
      baseVersion: 4,
    });
    expect(tasks.outbox.count()).toBe(1);
  });
});
