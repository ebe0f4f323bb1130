/**
 * Routine findings in the inbox: a routine whose last run reported something, while its session
 * waits for review. Quiet runs never show here (they are archived), nor failed ones (the
 * Routines page lists those with their cause).
 */
import { useBoard } from '../board.js';
import { navigate } from '../router.js';
import { useRoutines } from '../routines.js';

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
          </article>
        );
      })}
    </section>
  );
}
