import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TaskBoard, TaskCard } from '../../src/api/tasks.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { fromBoard, loadTasks, placeCard, trackTaskEvent } from './tasks.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

const card = (id: number, column: TaskCard['column'], position: number): TaskCard => ({
  id,
  project: 'p',
  projectRoot: '/r',
  title: `t${id}`,
  description: '',
  scope: [],
  tracker: null,
  trackerUrl: null,
  column,
  columnSetBy: 'hand',
  position,
  after: [],
  waitingFor: [],
  review: 'none',
  sessions: [],
  mergedCommit: null,
  createdAt: '',
  updatedAt: '',
});

const board: TaskBoard = {
  project: null,
  columns: [
    { column: 'backlog', tasks: [card(1, 'backlog', 0), card(2, 'backlog', 1), card(3, 'backlog', 2)] },
    { column: 'ready', tasks: [card(4, 'ready', 0)] },
    { column: 'running', tasks: [] },
    { column: 'needs_input', tasks: [] },
    { column: 'review', tasks: [] },
    { column: 'done', tasks: [] },
  ],
  entries: { '1': { decisions: 1, notes: 0 } },
};

describe('the kanban store', () => {
  it('puts a moved card at its place in its new column and closes the gap it left, as the supervisor does', () => {
    const start = fromBoard(board);
    const moved = placeCard(start, card(2, 'ready', 0));
    expect(moved.columns.backlog).toEqual([1, 3]);
    expect(moved.columns.ready).toEqual([2, 4]);
    expect(moved.cards.get(2)?.column).toBe('ready');
    // Columns the move did not touch keep their lists, so their views need not re-render.
    expect(moved.columns.done).toBe(start.columns.done);
  });

  it('reorders within a column, and a place past the end is the end', () => {
    const start = fromBoard(board);
    expect(placeCard(start, card(1, 'backlog', 2)).columns.backlog).toEqual([2, 3, 1]);
    expect(placeCard(start, card(3, 'backlog', 0)).columns.backlog).toEqual([3, 1, 2]);
    expect(placeCard(start, card(1, 'done', 99)).columns.done).toEqual([1]);
  });

  it('adds a card it did not know', () => {
    const next = placeCard(fromBoard(board), card(9, 'review', 0));
    expect(next.columns.review).toEqual([9]);
    expect(next.cards.size).toBe(5);
  });

  it("reads the board once more when another machine's change arrives while a read is in flight", async () => {
    // The network edge: each GET of the board waits until the test answers it.
    const answers: (() => void)[] = [];
    vi.stubGlobal(
      'fetch',
      () =>
        new Promise((resolve) =>
          answers.push(() =>
            resolve(
              new Response(JSON.stringify(board), {
                status: 200,
                headers: { 'content-type': 'application/json' },
              }),
            ),
          ),
        ),
    );
    const answered = async (count: number): Promise<void> => {
      const deadline = Date.now() + 2_000;
      while (answers.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} reads of the board, saw ${answers.length}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const synced = {
      type: 'task.synced',
      data: { project: 'p', changed: [1], removed: [] },
    } as unknown as WorkspaceEvent;
    const first = loadTasks();
    await answered(1);
    answers[0]!();
    await first;
    trackTaskEvent(synced);
    await answered(2);
    // A second change while that read is out: the read in flight may predate it.
    trackTaskEvent(synced);
    trackTaskEvent(synced);
    answers[1]!();
    await answered(3);
    const third = loadTasks(); // the read in flight
    answers[2]!();
    await third;
    // Once, however many changes came during the read.
    expect(answers).toHaveLength(3);
  });
});
