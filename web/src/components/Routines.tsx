/**
 * The Routines page: every scheduled or triggered routine with its next run time and its last
 * run, run now or paused from here; live on the board's stream.
 */
import { api, errorText } from '../api.js';
import { ago } from '../format.js';
import { navigate } from '../router.js';
import { refreshRoutines, useRoutines, type Routine } from '../routines.js';
import { toast } from '../toast.js';

export function Routines() {
  const { routines, error } = useRoutines();
  return (
    <div className="landing-page" data-testid="routines-page">
      <div className="review-head">
        <h1>Routines</h1>
        <span className="muted">
          Scheduled and triggered agents. Add one with `baton routine add`, or in .baton/config.json.
        </span>
      </div>
      {error !== undefined && <div className="error">{error}</div>}
      {routines === undefined ? (
        <div className="muted">Loading…</div>
      ) : routines.length === 0 ? (
        <div className="empty">
          No routines yet: baton routine add digest --cron &quot;0 8 * * *&quot; --agent codex --template
          digest
        </div>
      ) : (
        <table className="routines" data-testid="routines">
          <thead>
            <tr>
              <th>Routine</th>
              <th>When</th>
              <th>Next run</th>
              <th>Last run</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {routines.map((r) => (
              <RoutineRow key={r.id} routine={r} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function RoutineRow({ routine: r }: { routine: Routine }) {
  const last = r.lastRun;
  const act = (
    route:
      'POST /api/routines/:name/run' | 'POST /api/routines/:name/pause' | 'POST /api/routines/:name/resume',
    done: string,
  ): void => {
    api.call(route, { params: { name: r.name } }).then(
      () => {
        toast(done);
        refreshRoutines();
      },
      (e: unknown) => toast(errorText(e), 'error'),
    );
  };
  return (
    <tr data-routine={r.name}>
      <td>
        <strong>{r.name}</strong> <span className="muted">{r.project}</span>
        <div className="muted">
          {r.spec.template ?? r.spec.promptFile ?? (r.spec.prompt ?? '').split('\n')[0]}
        </div>
      </td>
      <td>{r.paused ? <span className="tag">paused</span> : r.when}</td>
      <td data-testid="next-run" title={r.nextRunAt ?? ''}>
        {r.nextRunAt === null ? '—' : new Date(r.nextRunAt).toLocaleString()}
      </td>
      <td data-testid="last-run">
        {last === null ? (
          <span className="muted">never</span>
        ) : (
          <>
            <span className={`tag outcome-${last.outcome}`}>{last.outcome}</span>{' '}
            <span className="muted">{ago(last.startedAt)}</span>
            {last.sessionId !== null && (
              <a
                href={`/s/${last.sessionId}`}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(`/s/${last.sessionId ?? ''}`);
                }}
              >
                {' '}
                {last.sessionName}
              </a>
            )}
            {last.cause !== null && <div className="muted">{last.cause.split('\n').slice(-1)[0]}</div>}
          </>
        )}
      </td>
      <td>
        <button
          className="btn btn-sm"
          onClick={() => act('POST /api/routines/:name/run', `${r.name}: started`)}
        >
          Run now
        </button>{' '}
        <button
          className="btn btn-sm"
          onClick={() =>
            act(
              r.paused ? 'POST /api/routines/:name/resume' : 'POST /api/routines/:name/pause',
              `${r.name} ${r.paused ? 'resumed' : 'paused'}`,
            )
          }
        >
          {r.paused ? 'Resume' : 'Pause'}
        </button>
      </td>
    </tr>
  );
}
