/**
 * The tasks board as `GET /api/tasks` answers it, against each card built on its own (`card()`, its
 * own queries: the card's place, dependencies, what it waits for, its sessions), on a board with
 * tasks in every column; and the board kept between loads (decision 420) following each thing a
 * card shows, while a session's bookkeeping alone leaves the kept board as it is.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../test/support/git-repo.js';
import { TaskAddRequest, type TaskBoard } from '../api/tasks.js';
import { WorkspaceBus } from '../bus/index.js';
import { TASK_COLUMNS } from '../events/task-card.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore, type SessionProjection } from '../store/sessions.js';
import { TaskStore } from '../store/tasks.js';
import { TaskService } from './service.js';
import { sessionRow } from '../../test/support/session-row.js';

let dir: string;
let repo: string;
let db: Db;
let sessions: SessionStore;
let store: TaskStore;
let tasks: TaskService;

const makeRepo = (name: string): string => {
  const root = join(dir, name);
  git(dir, 'init', '-q', '-b', 'main', root);
  writeFileSync(join(root, 'README.md'), '# r\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  return root;
};
const setTracker = (root: string, trackerUrl: string): void => {
  mkdirSync(join(root, '.baton'), { recursive: true });
  writeFileSync(join(root, '.baton', 'config.json'), JSON.stringify({ tasks: { trackerUrl } }));
};

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-board-kept-')));
  repo = makeRepo('repo');
  db = openDb(join(dir, 'baton.db'));
  sessions = new SessionStore(db);
  store = new TaskStore(db);
  tasks = new TaskService({ tasks: store, sessions, bus: new WorkspaceBus(db) });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const add = async (title: string, root: string, extra: Record<string, unknown> = {}) =>
  (await tasks.add(TaskAddRequest.parse({ title, ...extra }), root)).task;

const projection = (state: SessionProjection['state'], activity: string): SessionProjection => ({
  state,
  reason: undefined,
  activity,
  lastSeq: 0,
  offset: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  agentSessionId: null,
  lastEventAt: null,
});

/** A session started from `taskId`, in `state`. */
const startedFrom = (taskId: number, root: string, name: string, state: SessionProjection['state']) => {
  const project = sessions.ensureProject(root);
  sessions.insert(
    sessionRow({
      id: name,
      project_id: project.id,
      name,
      worktree: join(dir, 'worktrees', name),
      task_id: taskId,
    }),
    'queued',
  );
  sessions.applyProjection(name, projection(state, 'started'));
};

/** The board each card built on its own would make: every column, its cards by their place. */
function cardByCard(board: TaskBoard): TaskBoard['columns'] {
  const all = board.columns.flatMap((c) => c.tasks).map((t) => tasks.card(t.id));
  return TASK_COLUMNS.map((column) => ({
    column,
    tasks: all.filter((c) => c.column === column).sort((a, b) => a.position - b.position),
  }));
}

/** Tasks in all six columns of two projects: dependencies (one landed), sessions (one removed), three kinds of tracker reference. */
async function seed(): Promise<{ other: string; ids: number[] }> {
  const other = makeRepo('other');
  setTracker(repo, 'https://tracker.test/issues/{id}');
  const ids: number[] = [];
  const last = new Map<string, number>();
  for (let i = 0; i < 18; i++) {
    const tracker = [`#${i + 1}`, `ABC-${i + 1}`, `https://x.test/${i}`, undefined][i % 4];
    const root = i < 12 ? repo : other;
    const before = last.get(root);
    const card = await add(`task ${i}`, root, {
      ...(tracker === undefined ? {} : { tracker }),
      scope: [`src/m${i}/**`],
      after: i % 4 === 1 && before !== undefined ? [before] : [],
    });
    ids.push(card.id);
    last.set(root, card.id);
    await tasks.place(String(card.id), { column: TASK_COLUMNS[i % TASK_COLUMNS.length]! });
  }
  store.setMerged(ids[4]!, 'a'.repeat(40), new Date().toISOString());
  startedFrom(ids[14]!, other, 'one', 'working');
  startedFrom(ids[3]!, repo, 'two', 'needs_input');
  startedFrom(ids[3]!, repo, 'three', 'completed');
  sessions.markRemoved('three', null);
  return { other, ids };
}

describe('the tasks board', () => {
  it('is each card as built on its own, in every column, for one project and for all', async () => {
    await seed();
    for (const query of [{}, { all: 'true' as const }]) {
      const board = await tasks.board(query, repo);
      expect(board.columns.every((c) => c.tasks.length > 0)).toBe(true);
      expect(board.columns).toEqual(cardByCard(board));
      // And the same again when kept.
      expect(JSON.stringify(await tasks.board(query, repo))).toBe(JSON.stringify(board));
    }
    const all = await tasks.board({ all: 'true' }, repo);
    expect(all.columns.flatMap((c) => c.tasks).length).toBe(18);
    const links = all.columns.flatMap((c) => c.tasks).map((t) => [t.tracker, t.trackerUrl]);
    expect(links).toContainEqual(['#1', 'https://tracker.test/issues/1']);
    expect(links).toContainEqual(['https://x.test/2', 'https://x.test/2']);
  });

  it('is kept while only a session’s bookkeeping changes, and follows each thing a card shows', async () => {
    const { other, ids } = await seed();
    const first = await tasks.board({}, repo);
    // A session's activity is not on any card: the same board, not built again.
    sessions.applyProjection('two', projection('needs_input', 'thinking about it'));
    expect((await tasks.board({}, repo)).columns).toBe(first.columns);

    const changes: [string, () => void | Promise<void>][] = [
      ['a session changes state', () => sessions.applyProjection('two', projection('working', 'x'))],
      ['a session is removed', () => sessions.markRemoved('one', null)],
      ['a task lands', () => store.setMerged(ids[9]!, 'b'.repeat(40), new Date().toISOString())],
      ['a card moves', async () => void (await tasks.place(String(ids[0]), { column: 'done' }))],
      [
        'a title is edited',
        async () => void (await tasks.edit(String(ids[1]), { title: 'renamed', force: false })),
      ],
      [
        'a dependency is added',
        async () => void (await tasks.edit(String(ids[7]), { after: [ids[6]!], force: false })),
      ],
      ['a task is removed', async () => void (await tasks.remove(String(ids[17])))],
      ['the tracker template changes', () => setTracker(repo, 'https://elsewhere.test/{id}')],
      [
        'another connection writes',
        () => {
          const second = openDb(join(dir, 'baton.db'));
          second.prepare('UPDATE tasks SET title = ? WHERE id = ?').run('written elsewhere', ids[3]);
          second.close();
        },
      ],
    ];
    for (const [what, change] of changes) {
      const before = await tasks.board({ all: 'true' }, repo);
      await change();
      const after = await tasks.board({ all: 'true' }, repo);
      expect(after.columns, what).not.toEqual(before.columns);
      expect(after.columns, what).toEqual(cardByCard(after));
    }
    const titles = (await tasks.board({ all: 'true' }, other)).columns.flatMap((c) =>
      c.tasks.map((t) => t.title),
    );
    expect(titles).toContain('written elsewhere');
  });

  it('is sent as bytes made once, the board as JSON, until a card or an entry count changes', async () => {
    const { ids } = await seed();
    for (const query of [{}, { all: 'true' as const }]) {
      const answer = await tasks.boardAnswer(query, repo);
      expect(answer.bytes.toString('utf8')).toBe(JSON.stringify(await tasks.board(query, repo)));
      // A session's bookkeeping alone: the same answer, its bytes not made again.
      sessions.applyProjection('two', projection('needs_input', 'still thinking'));
      expect(await tasks.boardAnswer(query, repo)).toBe(answer);
    }
    const changes: [string, () => void | Promise<void>][] = [
      // Entry counts are read from the files, not the database: the mark does not move for them.
      ['a note is written', () => void tasks.entry(String(ids[0]), 'notes', 'a note')],
      ['a card moves', async () => void (await tasks.place(String(ids[2]), { column: 'done' }))],
    ];
    for (const [what, change] of changes) {
      const before = await tasks.boardAnswer({}, repo);
      await change();
      const after = await tasks.boardAnswer({}, repo);
      expect(after, what).not.toBe(before);
      expect(after.etag, what).not.toBe(before.etag);
      expect(after.bytes.toString('utf8'), what).toBe(JSON.stringify(await tasks.board({}, repo)));
    }
    expect((await tasks.board({}, repo)).entries[String(ids[0])]).toEqual({ decisions: 0, notes: 1 });
  });
});
