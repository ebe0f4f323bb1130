/**
 * Routine findings in the inbox: a routine whose last run reported something, while its session
 * waits for review, with what to do about them: make a task of them, or dismiss them. Quiet runs never show here (they are archived), nor failed ones (the
 * Routines page lists those with their cause).
 */
import { api, errorText } from '../api.js';
import { useBoard } from '../board.js';
import { navigate } from '../router.js';
import { refreshRoutines, useRoutines } from '../routines.js';
import { toast } from '../toast.js';

/** Dismiss a run's findings, or file them as a task (decision 156): its session is archived either way. */
function triage(routine: string, run: number, action: 'dismiss' | 'task'): void {
  api.call('POST /api/routines/:name/findings', { params: { name: routine }, body: { action, run } }).then(
    (result) => {
      toast(result.task === null ? `Dismissed ${routine}’s findings` : `Filed as task ${result.task.id}`);
      refreshRoutines();
    },
    (error: unknown) => toast(errorText(error), 'error'),
  );
}

export function RoutineFindings() {
  const { routines } = useRoutines();
  const board = useBoard();
  const findings = (routines ?? []).filter(
    (r) =>
      r.lastRun?.outcome === 'findings' &&
      r.lastRun.sessionId !== null &&
      board.sessions.get(r.lastRun.sessionId)?.state === 'ready_for_review',
  );
  if (findings.length === 0) return null;
  return (
    <section className="inbox" data-testid="routine-findings">
      {findings.map((r) => {
        const run = r.lastRun!;
        const id = run.sessionId!;
        return (
          <article key={r.id} className="inbox-item" data-routine={r.name}>
            <header className="inbox-head">
              <a
                className="inbox-name"
                href={`/s/${id}`}
                onClick={(e) => (e.preventDefault(), navigate(`/s/${id}`))}
              >
                {run.sessionName}
              </a>
              <span className="inbox-task">routine {r.name} reports</span>
            </header>
            <p className="finding">{(run.cause ?? '').split('\n').slice(-1)[0]}</p>
            <div className="row-actions">
              <button
                className="btn btn-sm"
                data-testid="finding-task"
                onClick={() => triage(r.name, run.id, 'task')}
              >
                Make a task
              </button>
              <button
                className="btn btn-sm"
                data-testid="finding-dismiss"
                onClick={() => triage(r.name, run.id, 'dismiss')}
              >
                Dismiss
              </button>
            </div>
          </article>
        );
      })}
    </section>
  );
}
