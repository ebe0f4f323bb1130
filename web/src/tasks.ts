/**
 * The Tasks page's store (decision 110, "The kanban is a page of its own"): the kanban's cards, fetched
 * once when a page shows them and then kept current from the board's one stream (`task.*` workspace
 * events each carry the whole card), so a move anywhere (the CLI, another page, a session changing
 * state) reaches every open page without asking again. A move made here is applied at once and then
 * confirmed by the supervisor's answer and its event; a refused one puts the board back as the
 * supervisor has it.
 */
import { useEffect, useSyncExternalStore } from 'react';
import type { TaskBoard, TaskCard } from '../../src/api/tasks.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { TASK_COLUMNS, type TaskColumnName } from '../../src/events/task-columns.js';
import { api, ApiError, errorText } from './api.js';
import { toast } from './toast.js';

export { TASK_COLUMNS, type TaskColumnName };
export type { TaskCard };

export const COLUMN_TITLES: Record<TaskColumnName, string> = {
  backlog: 'Backlog',
  ready: 'Ready',
  running: 'Running',
  needs_input: 'Needs input',
  review: 'Review',
  done: 'Done',
};

export interface EntryCounts {
  decisions: number;
  notes: number;
}

export interface TasksState {
  /** 'idle' until a page asks, and again after the stream reconnected while no page showed tasks (the next one asks). */
  status: 'idle' | 'loading' | 'loaded' | 'error';
  error?: string;
  cards: ReadonlyMap<number, TaskCard>;
  /** Card ids per column, top to bottom. */
  columns: Readonly<Record<TaskColumnName, readonly number[]>>;
  entries: Readonly<Record<string, EntryCounts>>;
}

const emptyColumns = (): Record<TaskColumnName, number[]> =>
  Object.fromEntries(TASK_COLUMNS.map((c) => [c, []])) as unknown as Record<TaskColumnName, number[]>;

let state: TasksState = { status: 'idle', cards: new Map(), columns: emptyColumns(), entries: {} };
const serverState = state;
const listeners = new Set<() => void>();
let watchers = 0;
let loading: Promise<void> | undefined;
/** A change arrived while a board was being read: that board may predate it, so read once more. */
let loadAgain = false;

function set(next: Partial<TasksState>): void {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

/** The whole board from the supervisor: on first showing, after a reconnect, after a refused move. */
export function loadTasks(): Promise<void> {
  if (loading !== undefined) return loading;
  if (state.status !== 'loaded') set({ status: 'loading' });
  loading = api.call('GET /api/tasks', { query: { all: 'true' } }).then(
    (board) => {
      loading = undefined;
      set({ status: 'loaded', error: undefined, ...fromBoard(board) });
    },
    (error: unknown) => {
      loading = undefined;
      set({ status: 'error', error: errorText(error) });
    },
  );
  return loading;
}

/** Reads the board again, once more after a read in flight (which may have been answered before the change). */
function reloadTasks(): void {
  if (loading === undefined) {
    void loadTasks();
    return;
  }
  if (loadAgain) return;
  loadAgain = true;
  void loading.finally(() => {
    loadAgain = false;
    void loadTasks();
  });
}

export function fromBoard(board: TaskBoard): Pick<TasksState, 'cards' | 'columns' | 'entries'> {
  const cards = new Map<number, TaskCard>();
  const columns = emptyColumns();
  for (const { column, tasks } of board.columns) {
    for (const task of tasks) {
      cards.set(task.id, task);
      columns[column].push(task.id);
    }
  }
  return { cards, columns, entries: board.entries };
}

/**
 * The card put where it now is: out of every column, into its own at its place. The supervisor
 * renumbers the others the same way, so the page's order stays its order without a refetch.
 */
export function placeCard(
  current: Pick<TasksState, 'cards' | 'columns'>,
  card: TaskCard,
): Pick<TasksState, 'cards' | 'columns'> {
  const cards = new Map(current.cards);
  cards.set(card.id, card);
  const columns = { ...current.columns };
  for (const column of TASK_COLUMNS)
    if (columns[column].includes(card.id)) columns[column] = columns[column].filter((id) => id !== card.id);
  const list = [...columns[card.column]];
  list.splice(Math.min(card.position, list.length), 0, card.id);
  columns[card.column] = list;
  return { cards, columns };
}

/** A card whose column and place did not change is replaced where it is (an edit, a session linked). */
function replaceCard(card: TaskCard): void {
  const known = state.cards.get(card.id);
  if (
    known !== undefined &&
    known.column === card.column &&
    state.columns[card.column].indexOf(card.id) === card.position
  ) {
    const cards = new Map(state.cards);
    cards.set(card.id, card);
    set({ cards });
  } else {
    set(placeCard(state, card));
  }
}

/** Called by the board's stream for every workspace event; only task events matter here. */
export function trackTaskEvent(event: WorkspaceEvent): void {
  if (!event.type.startsWith('task.') || state.status !== 'loaded') return;
  switch (event.type) {
    case 'task.added':
    case 'task.edited':
    case 'task.moved':
    case 'task.session_linked':
      replaceCard(event.data.task);
      return;
    case 'task.removed': {
      const cards = new Map(state.cards);
      cards.delete(event.data.taskId);
      const columns = { ...state.columns };
      for (const column of TASK_COLUMNS)
        columns[column] = columns[column].filter((id) => id !== event.data.taskId);
      set({ cards, columns });
      return;
    }
    case 'task.synced':
      // Another machine changed these tasks; this machine's store has them now (decision 147).
      reloadTasks();
      return;
    case 'task.decided':
    case 'task.noted': {
      const key = String(event.data.taskId);
      const known = state.entries[key] ?? { decisions: 0, notes: 0 };
      const kind = event.type === 'task.decided' ? 'decisions' : 'notes';
      set({ entries: { ...state.entries, [key]: { ...known, [kind]: known[kind] + 1 } } });
      return;
    }
    default:
      return;
  }
}

/** After the stream reconnected, events may have been missed: refetch if shown, else on next showing. */
export function tasksReconnected(): void {
  if (state.status !== 'loaded') return;
  if (watchers > 0) void loadTasks();
  else set({ status: 'idle' });
}

/** Moves a card: on the page at once, then by the supervisor; a refusal is shown and undone. */
export async function moveTask(id: number, column: TaskColumnName, position: number): Promise<void> {
  const card = state.cards.get(id);
  if (card === undefined) return;
  if (card.column === column && state.columns[column].indexOf(id) === position) return;
  set(placeCard(state, { ...card, column, position, columnSetBy: 'hand' }));
  try {
    const { task } = await api.call('POST /api/tasks/:id/move', {
      params: { id: String(id) },
      body: { column, position },
    });
    replaceCard(task);
  } catch (error) {
    toast(`Task ${id} was not moved: ${errorText(error)}`, 'error');
    await loadTasks();
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The tasks, fetched when the first page showing them mounts. */
export function useTasks(): TasksState {
  useEffect(() => {
    watchers++;
    if (state.status !== 'loaded') void loadTasks();
    return () => {
      watchers--;
    };
  }, []);
  return useSyncExternalStore(
    subscribe,
    () => state,
    () => serverState,
  );
}

/** The supervisor's refusal of a scope that overlaps a running task's (a conflict that --force lets through). */
export function isScopeOverlap(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'conflict' && error.message.includes('scope overlaps');
}
