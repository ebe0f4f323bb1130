/**
 * One column of the kanban. Memoised on what it shows: a move re-renders the two columns it
 * touches, not the other four (with 1,000 cards, rebuilding every column's list was most of a
 * move's cost on the page; see bench/kanban.mjs).
 */
import { memo } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import { COLUMN_TITLES, type EntryCounts, type TaskCard, type TaskColumnName } from '../tasks.js';
import { KanbanCard } from './KanbanCard.js';

export interface ColumnHandlers {
  onKey: (id: number, event: React.KeyboardEvent) => void;
  onDragStart: (id: number, event: React.DragEvent) => void;
  onDragEnd: () => void;
  onEdit: (id: number) => void;
  onStart: (id: number) => void;
  onDragOver: (column: TaskColumnName, event: React.DragEvent<HTMLElement>) => void;
  onDragLeave: (event: React.DragEvent<HTMLElement>) => void;
  onDrop: (column: TaskColumnName, event: React.DragEvent<HTMLElement>) => void;
}

export interface KanbanColumnProps {
  column: TaskColumnName;
  ids: readonly number[];
  cards: ReadonlyMap<number, TaskCard>;
  entries: Readonly<Record<string, EntryCounts>>;
  /** The board's sessions, for their live states. */
  sessions: ReadonlyMap<string, SessionView>;
  /** Where a dragged card would go in this column, if over it. */
  dropIndex: number | undefined;
  dragging: number | undefined;
  handlers: ColumnHandlers;
  /** How many cards to render (the first render shows a screenful; see Tasks). */
  limit: number | undefined;
}

function KanbanColumnView({
  column,
  ids,
  cards,
  entries,
  sessions,
  dropIndex,
  dragging,
  handlers,
  limit,
}: KanbanColumnProps) {
  return (
    <section
      className={`kcolumn kcolumn-${column}${dropIndex !== undefined ? ' drop-here' : ''}`}
      data-testid="task-column"
      data-column={column}
      onDragOver={(e) => handlers.onDragOver(column, e)}
      onDragLeave={handlers.onDragLeave}
      onDrop={(e) => handlers.onDrop(column, e)}
    >
      <h2 className="kcolumn-title">
        {COLUMN_TITLES[column]} <span className="group-count">{ids.length}</span>
      </h2>
      <div className="kcolumn-cards">
        {(limit === undefined ? ids : ids.slice(0, limit)).map((id, index) => {
          const task = cards.get(id);
          if (task === undefined) return null;
          return (
            <div key={id} className={dropIndex === index ? 'drop-before' : undefined}>
              <KanbanCard
                task={task}
                entries={entries[String(id)]}
                states={task.sessions.map((s) => sessions.get(s.id)?.state ?? s.state).join(',')}
                dragging={dragging === id}
                onKey={handlers.onKey}
                onDragStart={handlers.onDragStart}
                onDragEnd={handlers.onDragEnd}
                onEdit={handlers.onEdit}
                onStart={handlers.onStart}
              />
            </div>
          );
        })}
        {dropIndex !== undefined && dropIndex >= ids.filter((id) => id !== dragging).length && (
          <div className="drop-end" />
        )}
        {ids.length === 0 && <p className="kcolumn-empty muted">No tasks</p>}
      </div>
    </section>
  );
}

/** Same column when its list, its cards, their counts and the drag state are the same objects. */
function same(a: KanbanColumnProps, b: KanbanColumnProps): boolean {
  if (
    a.ids !== b.ids ||
    a.dropIndex !== b.dropIndex ||
    a.dragging !== b.dragging ||
    a.handlers !== b.handlers ||
    a.sessions !== b.sessions ||
    a.column !== b.column ||
    a.limit !== b.limit
  )
    return false;
  return a.ids.every(
    (id) => a.cards.get(id) === b.cards.get(id) && a.entries[String(id)] === b.entries[String(id)],
  );
}

export const KanbanColumn = memo(KanbanColumnView, same);
