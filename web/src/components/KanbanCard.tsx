/** One task on the kanban: title, tracker, scope, dependencies, its sessions (live states) and its decisions and notes. */
import { memo } from 'react';
import type { SessionState } from '../../../src/events/index.js';
import { STATE_LABEL } from '../format.js';
import { navigate } from '../router.js';
import type { EntryCounts, TaskCard } from '../tasks.js';

export interface KanbanCardProps {
  task: TaskCard;
  entries: EntryCounts | undefined;
  /**
   * Live states of its sessions from the board's stream, in the order of `task.sessions`, joined
   * with commas: a string, so a card re-renders only when one of its own sessions changed.
   */
  states: string;
  dragging: boolean;
  onKey: (id: number, event: React.KeyboardEvent) => void;
  onDragStart: (id: number, event: React.DragEvent) => void;
  onDragEnd: () => void;
  onEdit: (id: number) => void;
  onStart: (id: number) => void;
}

const SCOPE_SHOWN = 3;

export const KanbanCard = memo(function KanbanCard({
  task,
  entries,
  states,
  dragging,
  onKey,
  onDragStart,
  onDragEnd,
  onEdit,
  onStart,
}: KanbanCardProps) {
  const live = states.split(',').flatMap((state, i) => {
    const session = task.sessions[i];
    return session === undefined || session.removed ? [] : [{ ...session, state: state as SessionState }];
  });
  return (
    <article
      className={`kcard${dragging ? ' dragging' : ''}`}
      data-testid="task-card"
      data-task-id={task.id}
      data-column={task.column}
      tabIndex={0}
      draggable
      aria-label={`Task ${task.id}: ${task.title}`}
      onKeyDown={(e) => onKey(task.id, e)}
      onDragStart={(e) => onDragStart(task.id, e)}
      onDragEnd={onDragEnd}
      onDoubleClick={() => onEdit(task.id)}
    >
      <div className="kcard-head">
        <span className="kcard-id">#{task.id}</span>
        <span className="kcard-title">{task.title}</span>
      </div>
      {task.tracker !== null && (
        <div className="kcard-tracker" data-testid="task-tracker">
          {task.trackerUrl !== null ? (
            <a
              href={task.trackerUrl}
              target="_blank"
              rel="noopener noreferrer"
              onClick={(e) => e.stopPropagation()}
            >
              {task.tracker}
            </a>
          ) : (
            task.tracker
          )}
        </div>
      )}
      {task.scope.length > 0 && (
        <div className="kcard-scope" title={task.scope.join('\n')}>
          {task.scope.slice(0, SCOPE_SHOWN).map((glob) => (
            <code key={glob}>{glob}</code>
          ))}
          {task.scope.length > SCOPE_SHOWN && (
            <span className="muted">+{task.scope.length - SCOPE_SHOWN}</span>
          )}
        </div>
      )}
      {task.after.length > 0 && (
        <div className="kcard-after" data-testid="task-after">
          after {task.after.map((id) => `#${id}`).join(', ')}
          {task.waitingFor.length > 0 && (
            <span className="kcard-waiting">
              {' '}
              · waiting for {task.waitingFor.map((id) => `#${id}`).join(', ')}
            </span>
          )}
        </div>
      )}
      {live.length > 0 && (
        <div className="kcard-sessions">
          {live.map((s) => {
            const state = s.state;
            return (
              <a
                key={s.id}
                href={`/s/${s.id}`}
                className={`chip chip-${state}`}
                data-testid="task-session"
                title={`${s.agent}: ${STATE_LABEL[state]}`}
                onClick={(e) => {
                  e.preventDefault();
                  e.stopPropagation();
                  navigate(`/s/${s.id}`);
                }}
              >
                {s.name} · {STATE_LABEL[state]}
              </a>
            );
          })}
        </div>
      )}
      <div className="kcard-foot">
        <span className="kcard-entries" data-testid="task-entries">
          {entries?.decisions ?? 0} decision{entries?.decisions === 1 ? '' : 's'} · {entries?.notes ?? 0} note
          {entries?.notes === 1 ? '' : 's'}
        </span>
        {task.review !== 'none' && (
          <span className={`kcard-review review-${task.review}`}>
            {task.review === 'approved' ? 'approved' : 'changes requested'}
          </span>
        )}
        <span className="grow" />
        <button className="btn btn-sm" data-testid="task-edit" onClick={() => onEdit(task.id)} tabIndex={-1}>
          Edit
        </button>
        <button
          className="btn btn-sm"
          data-testid="task-start"
          onClick={() => onStart(task.id)}
          tabIndex={-1}
        >
          Start
        </button>
      </div>
    </article>
  );
});
