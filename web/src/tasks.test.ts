import { describe, expect, it } from 'vitest';
import type { TaskBoard, TaskCard } from '../../src/api/tasks.js';
import { fromBoard, placeCard } from './tasks.js';

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
});
