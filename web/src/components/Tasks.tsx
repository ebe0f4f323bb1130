/**
 * The Tasks page (decision 110, "The kanban is a page of its own"): the kanban. Columns Backlog → Done;
 * a card moves by dragging it (HTML5 drag and drop: no library needed for lists this simple) or from
 * the keyboard (see kanban-keys.ts, listed in the page's help). Everything shown comes from the tasks
 * store, which the board's one stream keeps current, and the sessions' live states from the board
 * itself.
 */
import { startTransition, useEffect, useMemo, useRef, useState } from 'react';
import { useBoard } from '../board.js';
import { KANBAN_KEYS, kanbanKey, ownsKey } from '../kanban-keys.js';
import { useKeys } from '../keys.js';
import { moveTask, TASK_COLUMNS, useTasks, type TaskColumnName } from '../tasks.js';
import { KanbanColumn, type ColumnHandlers } from './KanbanColumn.js';
import { TaskForm } from './TaskForm.js';
import { TaskStart } from './TaskStart.js';

/** Cards per column in the first render: more than a tall screen holds. */
const FIRST_SCREEN_CARDS = 12;

type Panel = { kind: 'add' } | { kind: 'edit'; id: number } | { kind: 'start'; id: number } | undefined;

export function Tasks() {
  const tasks = useTasks();
  const board = useBoard();
  const [panel, setPanel] = useState<Panel>();
  const [dragging, setDragging] = useState<number>();
  const [drop, setDrop] = useState<{ column: TaskColumnName; index: number }>();
  const [help, setHelp] = useState(false);
  /** The card to focus once it is rendered where it moved to. */
  const focusNext = useRef<number | undefined>(undefined);
  const page = useRef<HTMLDivElement>(null);

  // `a` (add): `c` is the shell's key for the Cost page.
  useKeys({ a: () => setPanel({ kind: 'add' }), '?': () => setHelp((h) => !h) });

  // About a screen of each column first, so it paints without waiting for a thousand cards; the rest follow in a deferred render.
  const [whole, setWhole] = useState(false);
  const loaded = tasks.status === 'loaded';
  useEffect(() => {
    if (!loaded || whole) return;
    const frame = requestAnimationFrame(() => startTransition(() => setWhole(true)));
    return () => cancelAnimationFrame(frame);
  }, [loaded, whole]);

  const projects = useMemo(() => {
    const roots = new Set<string>();
    for (const card of tasks.cards.values()) roots.add(card.projectRoot);
    for (const s of board.sessions.values()) roots.add(s.projectRoot);
    return [...roots].sort();
  }, [tasks.cards, board.sessions]);

  useEffect(() => {
    if (focusNext.current === undefined) return;
    const card = page.current?.querySelector<HTMLElement>(`[data-task-id="${focusNext.current}"]`);
    if (card !== null && card !== undefined) {
      card.focus();
      focusNext.current = undefined;
    }
  });

  // Read through refs, so the handlers stay one object and the memoised columns skip re-rendering.
  const live = useRef({ columns: tasks.columns, cards: tasks.cards, drop, dragging });
  live.current = { columns: tasks.columns, cards: tasks.cards, drop, dragging };
  const handlers = useMemo<ColumnHandlers>(
    () => ({
      onKey: (id, event) => {
        if (event.target !== event.currentTarget || event.metaKey || event.ctrlKey || event.altKey) return;
        const action = kanbanKey(live.current.columns, id, event);
        if (action.kind === 'none') {
          // A card's own key that does nothing here (l on the last column) must not act page-wide either.
          if (ownsKey(event.key)) {
            event.preventDefault();
            event.stopPropagation();
          }
          return;
        }
        // Handled here: the page-wide keys (l for Landing, …) must not act on it too.
        event.preventDefault();
        event.stopPropagation();
        if (action.kind === 'focus')
          page.current?.querySelector<HTMLElement>(`[data-task-id="${action.id}"]`)?.focus();
        else if (action.kind === 'move') {
          focusNext.current = id;
          void moveTask(id, action.column, action.position);
        } else if (action.kind === 'edit') setPanel({ kind: 'edit', id });
        else setPanel({ kind: 'start', id });
      },
      onDragStart: (id, event) => {
        event.dataTransfer.setData('text/plain', String(id));
        event.dataTransfer.effectAllowed = 'move';
        setDragging(id);
      },
      onDragEnd: () => {
        setDragging(undefined);
        setDrop(undefined);
      },
      onEdit: (id) => setPanel({ kind: 'edit', id }),
      onStart: (id) => setPanel({ kind: 'start', id }),
      onDragOver: (column, event) => {
        const { dragging, drop } = live.current;
        if (dragging === undefined) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'move';
        const index = dropIndex(event.currentTarget, event.clientY, dragging);
        if (drop?.column !== column || drop.index !== index) setDrop({ column, index });
      },
      onDragLeave: (event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDrop(undefined);
      },
      onDrop: (column, event) => {
        event.preventDefault();
        const id = Number(event.dataTransfer.getData('text/plain'));
        const index = dropIndex(event.currentTarget, event.clientY, live.current.dragging);
        setDrop(undefined);
        setDragging(undefined);
        if (live.current.cards.has(id)) void moveTask(id, column, index);
      },
    }),
    [],
  );

  const closePanel = (): void => setPanel(undefined);
  const panelTask = panel !== undefined && panel.kind !== 'add' ? tasks.cards.get(panel.id) : undefined;

  if (tasks.status === 'error')
    return <div className="empty error-text">The tasks could not be loaded: {tasks.error}</div>;
  if (tasks.status !== 'loaded') return <div className="empty">Loading tasks…</div>;
  return (
    <div className="tasks-page" data-testid="tasks-page" ref={page}>
      <div className="toolbar">
        <h1 className="page-title">Tasks</h1>
        <span className="grow" />
        <button className="btn" onClick={() => setHelp((h) => !h)} aria-expanded={help}>
          Keys <kbd>?</kbd>
        </button>
        <button
          className="btn btn-primary"
          data-testid="task-add"
          title="A new task (key a)"
          onClick={() => setPanel({ kind: 'add' })}
        >
          New task <kbd>a</kbd>
        </button>
      </div>
      {help && (
        <dl className="kanban-help" data-testid="kanban-help">
          {KANBAN_KEYS.map(([keys, what]) => (
            <div key={keys}>
              <dt>{keys}</dt>
              <dd>{what}</dd>
            </div>
          ))}
          <div>
            <dt>drag</dt>
            <dd>a card to another column or place</dd>
          </div>
        </dl>
      )}
      {panel?.kind === 'add' && <TaskForm task={undefined} projects={projects} onDone={closePanel} />}
      {panel?.kind === 'edit' && panelTask !== undefined && (
        <TaskForm key={panelTask.id} task={panelTask} projects={projects} onDone={closePanel} />
      )}
      {panel?.kind === 'start' && panelTask !== undefined && (
        <TaskStart key={panelTask.id} task={panelTask} onDone={closePanel} />
      )}
      <div className="kanban" data-testid="kanban">
        {TASK_COLUMNS.map((column) => (
          <KanbanColumn
            key={column}
            column={column}
            ids={tasks.columns[column]}
            cards={tasks.cards}
            entries={tasks.entries}
            sessions={board.sessions}
            dropIndex={drop?.column === column ? drop.index : undefined}
            dragging={dragging}
            handlers={handlers}
            limit={whole ? undefined : FIRST_SCREEN_CARDS}
          />
        ))}
      </div>
    </div>
  );
}

/** Where in a column a card dropped at `y` goes: after every other card whose middle is above it. */
function dropIndex(list: HTMLElement, y: number, dragging: number | undefined): number {
  return [...list.querySelectorAll<HTMLElement>('[data-task-id]')]
    .filter((el) => Number(el.dataset.taskId) !== dragging)
    .filter((el) => {
      const r = el.getBoundingClientRect();
      return r.top + r.height / 2 < y;
    }).length;
}
