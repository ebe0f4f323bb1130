import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskAddRequest, TaskEditRequest } from '../api/tasks.js';
import { WorkspaceBus } from '../bus/index.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { TaskStore } from '../store/tasks.js';
import { TaskService } from './service.js';

let dir: string;
let repo: string;
let db: Db;
let bus: WorkspaceBus;
let tasks: TaskService;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-tasks-')));
  repo = join(dir, 'repo');
  git(dir, 'init', '-q', '-b', 'main', repo);
  writeFileSync(join(repo, 'README.md'), '# r\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'init');
  db = openDb(join(dir, 'baton.db'));
  bus = new WorkspaceBus(db);
  tasks = new TaskService({
    tasks: new TaskStore(db),
    sessions: new SessionStore(db),
    bus,
    clock: () => new Date('2026-01-31T12:00:00.000Z'),
  });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const add = async (title: string, extra: Partial<ReturnType<typeof TaskAddRequest.parse>> = {}) =>
  (await tasks.add(TaskAddRequest.parse({ title, ...extra }), repo)).task;

describe('the tasks service', () => {
  it('adds tasks to the end of their column and publishes each whole card', async () => {
    const a = await add('a');
    const b = await add('b', { column: 'ready', tracker: '#7' });
    const c = await add('c');
    expect([a.position, b.position, c.position]).toEqual([0, 0, 1]);
    const events = bus.list().filter((e) => e.type === 'task.added');
    expect(events.map((e) => (e.type === 'task.added' ? e.data.task.title : ''))).toEqual(['a', 'b', 'c']);
    const board = await tasks.board({}, repo);
    expect(board.columns.map((col) => [col.column, col.tasks.map((t) => t.id)])).toEqual([
      ['backlog', [a.id, c.id]],
      ['ready', [b.id]],
      ['running', []],
      ['needs_input', []],
      ['review', []],
      ['done', []],
    ]);
    expect(board.columns[1]?.tasks[0]).toMatchObject({
      tracker: '#7',
      trackerUrl: null,
      columnSetBy: 'hand',
    });
    // Outside any repository: every project's tasks.
    const everywhere = await tasks.board({}, dir);
    expect(everywhere.project).toBeNull();
    expect(everywhere.columns.flatMap((col) => col.tasks.map((t) => t.id)).sort()).toEqual(
      [a.id, b.id, c.id].sort(),
    );
  });

  it('moves a card to a place in a column, closing the gap it left', async () => {
    const [a, b, c] = [await add('a'), await add('b'), await add('c')];
    tasks.move(String(c.id), { column: 'backlog', position: 0 });
    expect((await tasks.board({}, repo)).columns[0]?.tasks.map((t) => [t.id, t.position])).toEqual([
      [c.id, 0],
      [a.id, 1],
      [b.id, 2],
    ]);
    const moved = tasks.move(String(a.id), { column: 'review', position: 5 }).task;
    expect(moved).toMatchObject({ column: 'review', position: 0, columnSetBy: 'hand' });
    expect((await tasks.board({}, repo)).columns[0]?.tasks.map((t) => [t.id, t.position])).toEqual([
      [c.id, 0],
      [b.id, 1],
    ]);
    const last = bus.list().at(-1);
    expect(last?.type === 'task.moved' && [last.data.from, last.data.to, last.data.by]).toEqual([
      'backlog',
      'review',
      'hand',
    ]);
  });

  it('refuses a cycle of any length, and a dependency on itself', async () => {
    const a = await add('a');
    const b = await add('b', { after: [a.id] });
    const c = await add('c', { after: [b.id] });
    await expect(tasks.edit(String(a.id), TaskEditRequest.parse({ after: [c.id] }))).rejects.toThrow(
      `task ${a.id} → task ${c.id} → task ${b.id} → task ${a.id}`,
    );
    await expect(tasks.edit(String(a.id), TaskEditRequest.parse({ after: [a.id] }))).rejects.toThrow(/cycle/);
    // A diamond is not a cycle.
    await tasks.edit(String(c.id), TaskEditRequest.parse({ after: [a.id, b.id] }));
    expect(tasks.card(c.id).after).toEqual([a.id, b.id]);
  });

  it('says what an edit changed, and refuses an edit that changes nothing', async () => {
    const a = await add('a');
    const { task } = await tasks.edit(
      String(a.id),
      TaskEditRequest.parse({ title: 'a2', review: 'approved', tracker: 'ABC-1' }),
    );
    expect(task).toMatchObject({ title: 'a2', review: 'approved', tracker: 'ABC-1' });
    const last = bus.list().at(-1);
    expect(last?.type === 'task.edited' && last.data.fields).toEqual(['title', 'tracker', 'review']);
    await expect(tasks.edit(String(a.id), TaskEditRequest.parse({}))).rejects.toThrow(/Nothing to change/);
  });

  it('records decisions and notes as files and publishes them', async () => {
    const a = await add('a');
    const entry = tasks.entry(String(a.id), 'decisions', 'keep it');
    expect(entry.file).toBe(`.baton/decisions/${a.id}-1-keep-it.md`);
    expect(tasks.detail(String(a.id)).decisions.map((d) => d.text)).toEqual(['keep it']);
    const last = bus.list().at(-1);
    expect(last?.type === 'task.decided' && last.data.file).toBe(entry.file);
  });
});
