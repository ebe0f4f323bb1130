/** The board's decision and note counts (decision 112): from the `.baton/` files, and a broken file costs its counts, not the board. */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskAddRequest, TaskBoardQuery } from '../api/tasks.js';
import { WorkspaceBus } from '../bus/index.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { TaskStore } from '../store/tasks.js';
import { TaskService } from './service.js';

let dir: string;
let repo: string;
let db: Db;
let tasks: TaskService;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-board-entries-')));
  repo = join(dir, 'repo');
  git(dir, 'init', '-q', '-b', 'main', repo);
  writeFileSync(join(repo, 'README.md'), '# r\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'init');
  db = openDb(join(dir, 'baton.db'));
  tasks = new TaskService({
    tasks: new TaskStore(db),
    sessions: new SessionStore(db),
    bus: new WorkspaceBus(db),
  });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the board’s decision and note counts', () => {
  it('counts each task’s decisions and notes, leaves out tasks with none, and still loads when a file is broken by hand', async () => {
    const a = (await tasks.add(TaskAddRequest.parse({ title: 'a' }), repo)).task;
    const b = (await tasks.add(TaskAddRequest.parse({ title: 'b' }), repo)).task;
    await tasks.add(TaskAddRequest.parse({ title: 'c' }), repo);
    tasks.entry(String(a.id), 'decisions', 'one');
    tasks.entry(String(a.id), 'decisions', 'two');
    tasks.entry(String(a.id), 'notes', 'a note');
    tasks.entry(String(b.id), 'notes', 'b note');
    const board = await tasks.board(TaskBoardQuery.parse({}), repo);
    expect(board.entries).toEqual({
      [String(a.id)]: { decisions: 2, notes: 1 },
      [String(b.id)]: { decisions: 0, notes: 1 },
    });

    writeFileSync(join(repo, '.baton', 'decisions', 'broken.md'), 'no front matter here\n');
    const after = await tasks.board(TaskBoardQuery.parse({}), repo);
    expect(after.columns.flatMap((c) => c.tasks).map((t) => t.title)).toEqual(['a', 'b', 'c']);
    // The decisions folder cannot be read whole: its counts go, the notes' stay.
    expect(after.entries).toEqual({
      [String(a.id)]: { decisions: 0, notes: 1 },
      [String(b.id)]: { decisions: 0, notes: 1 },
    });
  });
});
