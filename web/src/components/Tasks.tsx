/**
 * The Tasks page (issue 12): the kanban. Columns Backlog → Done; a card moves by dragging it
 * (HTML5 drag and drop: no library needed for lists this simple) or from the keyboard (see
 * kanban-keys.ts, listed in the page's help). Everything shown comes from the tasks store, which
 * the board's one stream keeps current, and the sessions' live states from the board itself.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { SessionState } from '../../../src/events/index.js';
import { useBoard } from '../board.js';
import { KANBAN_KEYS, kanbanKey } from '../kanban-keys.js';
import { useKeys } from '../keys.js';
import { COLUMN_TITLES, moveTask, TASK_COLUMNS, useTasks, type TaskColumnName } from '../tasks.js';
import { KanbanCard } from './KanbanCard.js';
import { TaskForm } from './TaskForm.js';
import { TaskStart } from './TaskStart.js';

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

  useKeys({ c: () => setPanel({ kind: 'add' }), '?': () => setHelp((h) => !h) });

  const stateOf = (id: string, known: SessionState): SessionState => board.sessions.get(id)?.state ?? known;
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

  const columnsRef = useRef(tasks.columns);
  columnsRef.current = tasks.columns;
  const onKey = useCallback((id: number, event: React.KeyboardEvent) => {
    if (event.target !== event.currentTarget || event.metaKey || event.ctrlKey || event.altKey) return;
    const action = kanbanKey(columnsRef.current, id, event);
    if (action.kind === 'none') return;
    // Handled here: the page-wide keys (l for Landing, …) must not act on it too.
    event.preventDefault();
    event.stopPropagation();
    if (action.kind === 'focus') page.current?.querySelector<HTMLElement>(`[data-task-id="${action.id}"]`)?.focus();
    else if (action.kind === 'move') {
      focusNext.current = id;
      void moveTask(id, action.column, action.position);
    } else if (action.kind === 'edit') setPanel({ kind: 'edit', id });
    else setPanel({ kind: 'start', id });
  }, []);
  const onDragStart = useCallback((id: number, event: React.DragEvent) => {
    event.dataTransfer.setData('text/plain', String(id));
    event.dataTransfer.effectAllowed = 'move';
    setDragging(id);
  }, []);
  const onDragEnd = useCallback(() => {
    setDragging(undefined);
    setDrop(undefined);
  }, []);
  const onEdit = useCallback((id: number) => setPanel({ kind: 'edit', id }), []);
  const onStart = useCallback((id: number) => setPanel({ kind: 'start', id }), []);

  /** Where in `column` a card dropped at `y` goes: after every other card whose middle is above it. */
  const dropIndex = (list: HTMLElement, y: number): number =>
    [...list.querySelectorAll<HTMLElement>('[data-task-id]')].filter((el) => Number(el.dataset.taskId) !== dragging).filter((el) => {
      const r = el.getBoundingClientRect();
      return r.top + r.height / 2 < y;
    }).length;

  const closePanel = (): void => setPanel(undefined);
  const panelTask = panel !== undefined && panel.kind !== 'add' ? tasks.cards.get(panel.id) : undefined;

  if (tasks.status === 'error') return <div className="empty error-text">The tasks could not be loaded: {tasks.error}</div>;
  if (tasks.status !== 'loaded') return <div className="empty">Loading tasks…</div>;
  return (
    <div className="tasks-page" data-testid="tasks-page" ref={page}>
      <div className="toolbar">
        <h1 className="page-title">Tasks</h1>
        <span className="grow" />
        <button className="btn" onClick={() => setHelp((h) => !h)} aria-expanded={help}>
          Keys <kbd>?</kbd>
        </button>
        <button className="btn btn-primary" data-testid="task-add" onClick={() => setPanel({ kind: 'add' })}>
          New task <kbd>c</kbd>
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
      {panel?.kind === 'edit' && panelTask !== undefined && <TaskForm key={panelTask.id} task={panelTask} projects={projects} onDone={closePanel} />}
      {panel?.kind === 'start' && panelTask !== undefined && <TaskStart key={panelTask.id} task={panelTask} onDone={closePanel} />}
      <div className="kanban" data-testid="kanban">
        {TASK_COLUMNS.map((column) => {
          const ids = tasks.columns[column];
          return (
            <section
              key={column}
              className={`kcolumn kcolumn-${column}${drop?.column === column ? ' drop-here' : ''}`}
              data-testid="task-column"
              data-column={column}
              onDragOver={(e) => {
                if (dragging === undefined) return;
                e.preventDefault();
                e.dataTransfer.dropEffect = 'move';
                const index = dropIndex(e.currentTarget, e.clientY);
                if (drop?.column !== column || drop.index !== index) setDrop({ column, index });
              }}
              onDragLeave={(e) => {
                if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDrop(undefined);
              }}
              onDrop={(e) => {
                e.preventDefault();
                const id = Number(e.dataTransfer.getData('text/plain'));
                const index = dropIndex(e.currentTarget, e.clientY);
                setDrop(undefined);
                setDragging(undefined);
                if (tasks.cards.has(id)) void moveTask(id, column, index);
              }}
            >
              <h2 className="kcolumn-title">
                {COLUMN_TITLES[column]} <span className="group-count">{ids.length}</span>
              </h2>
              <div className="kcolumn-cards">
                {ids.map((id, index) => {
                  const task = tasks.cards.get(id);
                  if (task === undefined) return null;
                  return (
                    <div key={id} className={drop?.column === column && drop.index === index ? 'drop-before' : undefined}>
                      <KanbanCard
                        task={task}
                        entries={tasks.entries[String(id)]}
                        states={task.sessions.map((s) => stateOf(s.id, s.state)).join(',')}
                        dragging={dragging === id}
                        onKey={onKey}
                        onDragStart={onDragStart}
                        onDragEnd={onDragEnd}
                        onEdit={onEdit}
                        onStart={onStart}
                      />
                    </div>
                  );
                })}
                {drop?.column === column && drop.index >= ids.filter((id) => id !== dragging).length && <div className="drop-end" />}
                {ids.length === 0 && <p className="kcolumn-empty muted">No tasks</p>}
              </div>
            </section>
          );
        })}
      </div>
    </div>
  );
}
