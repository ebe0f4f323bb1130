/**
 * The kanban's keyboard, as plain functions of the columns (tested beside this file): which card
 * a key focuses, and where a key moves the focused card. The page turns the answer into focus
 * or a move.
 */
import { TASK_COLUMNS, type TaskColumnName } from '../../src/events/task-columns.js';

export type Columns = Readonly<Record<TaskColumnName, readonly number[]>>;

export type KeyAction =
  | { kind: 'focus'; id: number }
  | { kind: 'move'; column: TaskColumnName; position: number }
  | { kind: 'edit' }
  | { kind: 'start' }
  | { kind: 'none' };

/** What the page's help shows; the same keys `kanbanKey` reads. */
export const KANBAN_KEYS: readonly [string, string][] = [
  ['↑ ↓ ← → (or j k h l)', 'focus a card'],
  ['Shift + ← →', 'move the card a column left or right'],
  ['Shift + ↑ ↓', 'move the card up or down its column'],
  ['1 – 6', 'move the card to that column'],
  ['Enter or e', 'edit the card'],
  ['s', 'start a session on it'],
  ['a', 'a new task'],
];

interface KeyLike {
  key: string;
  shiftKey: boolean;
}

export function kanbanKey(columns: Columns, id: number, event: KeyLike): KeyAction {
  const column = TASK_COLUMNS.find((c) => columns[c].includes(id));
  if (column === undefined) return { kind: 'none' };
  const list = columns[column];
  const index = list.indexOf(id);
  const c = TASK_COLUMNS.indexOf(column);
  const key = event.key;
  if (event.shiftKey && (key === 'ArrowLeft' || key === 'ArrowRight')) {
    const to = TASK_COLUMNS[c + (key === 'ArrowLeft' ? -1 : 1)];
    return to === undefined
      ? { kind: 'none' }
      : { kind: 'move', column: to, position: Math.min(index, columns[to].length) };
  }
  if (event.shiftKey && (key === 'ArrowUp' || key === 'ArrowDown')) {
    const position = index + (key === 'ArrowUp' ? -1 : 1);
    return position < 0 || position >= list.length ? { kind: 'none' } : { kind: 'move', column, position };
  }
  if (/^[1-6]$/.test(key)) {
    const to = TASK_COLUMNS[Number(key) - 1] as TaskColumnName;
    return to === column ? { kind: 'none' } : { kind: 'move', column: to, position: columns[to].length };
  }
  if (key === 'ArrowUp' || key === 'k' || key === 'ArrowDown' || key === 'j') {
    const next = list[index + (key === 'ArrowUp' || key === 'k' ? -1 : 1)];
    return next === undefined ? { kind: 'none' } : { kind: 'focus', id: next };
  }
  if (key === 'ArrowLeft' || key === 'h' || key === 'ArrowRight' || key === 'l') {
    const step = key === 'ArrowLeft' || key === 'h' ? -1 : 1;
    // The nearest column that has cards, at about the same height.
    for (let to = c + step; to >= 0 && to < TASK_COLUMNS.length; to += step) {
      const other = columns[TASK_COLUMNS[to] as TaskColumnName];
      const target = other[Math.min(index, other.length - 1)];
      if (target !== undefined) return { kind: 'focus', id: target };
    }
    return { kind: 'none' };
  }
  if (key === 'Enter' || key === 'e') return { kind: 'edit' };
  if (key === 's') return { kind: 'start' };
  return { kind: 'none' };
}

/** The keys a focused card owns: they never reach the page-wide keys (l is Landing), even when they do nothing here. */
const OWNED = new Set([
  'ArrowLeft',
  'ArrowRight',
  'ArrowUp',
  'ArrowDown',
  'h',
  'j',
  'k',
  'l',
  'H',
  'J',
  'K',
  'L',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  'e',
  'Enter',
  's',
]);

export function ownsKey(key: string): boolean {
  return OWNED.has(key);
}
