/** The task a session works on, beside its question or approval: "(fix the flaky watcher test, #432)". */
import type { SessionView } from '../../../src/api/index.js';

export function TaskTag({ session }: { session: SessionView }) {
  const task = session.task;
  if (task === null || task === undefined) return null;
  const tracker = task.tracker;
  const web = tracker !== null && /^https?:\/\//.test(tracker);
  return (
    <span className="task-tag" data-testid="task-tag" title={`task ${task.id}`}>
      ({task.title}
      {tracker !== null && (
        <>
          {', '}
          {web ? (
            <a href={tracker} target="_blank" rel="noopener noreferrer" onClick={(e) => e.stopPropagation()}>
              {tracker}
            </a>
          ) : (
            tracker
          )}
        </>
      )}
      )
    </span>
  );
}
