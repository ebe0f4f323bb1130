import { describe, expect, it } from 'vitest';
import { kanbanKey, ownsKey, type Columns } from './kanban-keys.js';

const columns: Columns = {
  backlog: [1, 2, 3],
  ready: [4],
  running: [],
  needs_input: [],
  review: [5, 6],
  done: [],
};
const press = (id: number, key: string, shiftKey = false) => kanbanKey(columns, id, { key, shiftKey });

describe('the kanban keyboard', () => {
  it('moves the focus up and down a column and stops at its ends', () => {
    expect(press(2, 'ArrowDown')).toEqual({ kind: 'focus', id: 3 });
    expect(press(2, 'k')).toEqual({ kind: 'focus', id: 1 });
    expect(press(3, 'j')).toEqual({ kind: 'none' });
    expect(press(1, 'ArrowUp')).toEqual({ kind: 'none' });
  });

  it('moves the focus sideways to the nearest column with cards, at about the same height', () => {
    expect(press(3, 'ArrowRight')).toEqual({ kind: 'focus', id: 4 });
    expect(press(4, 'l')).toEqual({ kind: 'focus', id: 5 });
    expect(press(5, 'h')).toEqual({ kind: 'focus', id: 4 });
    expect(press(1, 'ArrowLeft')).toEqual({ kind: 'none' });
  });

  it('moves the card a column over with Shift and an arrow, at its height or last', () => {
    expect(press(3, 'ArrowRight', true)).toEqual({ kind: 'move', column: 'ready', position: 1 });
    expect(press(6, 'ArrowLeft', true)).toEqual({ kind: 'move', column: 'needs_input', position: 0 });
    expect(press(1, 'ArrowLeft', true)).toEqual({ kind: 'none' });
  });

  it('reorders a column with Shift and up or down, not past its ends', () => {
    expect(press(2, 'ArrowUp', true)).toEqual({ kind: 'move', column: 'backlog', position: 0 });
    expect(press(2, 'ArrowDown', true)).toEqual({ kind: 'move', column: 'backlog', position: 2 });
    expect(press(3, 'ArrowDown', true)).toEqual({ kind: 'none' });
  });

  it('sends the card to a column by its number, last in it', () => {
    expect(press(1, '6')).toEqual({ kind: 'move', column: 'done', position: 0 });
    expect(press(1, '5')).toEqual({ kind: 'move', column: 'review', position: 2 });
    expect(press(1, '1')).toEqual({ kind: 'none' });
  });

  it('edits with Enter or e, starts with s, and ignores other keys and unknown cards', () => {
    expect(press(1, 'Enter')).toEqual({ kind: 'edit' });
    expect(press(1, 'e')).toEqual({ kind: 'edit' });
    expect(press(1, 's')).toEqual({ kind: 'start' });
    expect(press(1, 'x')).toEqual({ kind: 'none' });
    expect(press(99, 'ArrowDown')).toEqual({ kind: 'none' });
  });
});

describe('the keys a card owns', () => {
  it('include the moves that can do nothing (l on the last column), and not the page-wide ones', () => {
    for (const key of ['l', 'h', 'ArrowRight', 'Enter', 's', '6']) expect(ownsKey(key)).toBe(true);
    for (const key of ['g', 'i', 'c', 'o', 'a', '/']) expect(ownsKey(key)).toBe(false);
  });
});
