/**
 * The landing plan of one repository: its ready sessions in the order that lands them with the
 * fewest conflicts (`GET /api/merges/plan`, which compares their work with `git merge-tree`
 * and moves nothing), with a Merge button per step and one for the whole order. Planned again
 * when a session of the repository changes state and when one of its merges ends, since either
 * changes the answer.
 */
import { useEffect, useState } from 'react';
import type { MergePlanView } from '../../../src/api/merge.js';
import { api, errorText } from '../api.js';
import { useBoard } from '../board.js';
import { forgetStarted, isFinal, startMerge, useLanding } from '../landing.js';
import { toast } from '../toast.js';
import { MergeProgress } from './MergeProgress.js';
import { firstOf, whyNot } from '../why.js';

export function LandingPlan() {
  const board = useBoard();
  const { tracks, started } = useLanding();
  const sessions = [...board.sessions.values()];
  const roots = new Map<string, string>();
  for (const s of sessions) roots.set(s.projectRoot, s.project);
  const projects = [...roots]
    .map(([root, name]) => ({ root, name }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const [chosen, setChosen] = useState<string | undefined>();
  const root = chosen !== undefined && projects.some((p) => p.root === chosen) ? chosen : projects[0]?.root;
  const [plan, setPlan] = useState<{ root: string; view: MergePlanView } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loads, setLoads] = useState(0);
  const [squash, setSquash] = useState(false);
  const [busy, setBusy] = useState(false);

  // What makes the plan stale: a session of the repository changing state, or a merge of it ending.
  const turns = sessions
    .filter((s) => s.projectRoot === root)
    .map((s) => `${s.id}:${s.state}`)
    .join(',');
  const name = projects.find((p) => p.root === root)?.name;
  const ended = [...tracks.values()].filter((t) => t.project === name && isFinal(t.phase)).length;
  useEffect(() => {
    if (root === undefined) return;
    let current = true;
    setError(undefined);
    api.call('GET /api/merges/plan', { query: { project: root } }).then(
      (view) => current && setPlan({ root, view }),
      (e: unknown) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [root, turns, ended, loads]);

  const storeKey = root === undefined ? '' : `plan:${root}`;
  const mergeId = started[storeKey];
  const track = mergeId === undefined ? undefined : tracks.get(mergeId);
  const inQueue = new Set(
    [...tracks.values()].filter((t) => !isFinal(t.phase)).flatMap((t) => t.sessions.map((s) => s.sessionId)),
  );
  const merge = async (ids: string[]) => {
    setBusy(true);
    try {
      await startMerge(ids, { squash, planned: false, key: storeKey });
    } catch (e) {
      toast(errorText(e), 'error');
    } finally {
      setBusy(false);
    }
  };

  const view = plan !== undefined && plan.root === root ? plan.view : undefined;
  return (
    <section className="landing-section" data-testid="merge-plan">
      <h2 className="group-title">
        Plan
        {projects.length > 1 && (
          <select
            className="project-select plan-project"
            value={root}
            onChange={(e) => setChosen(e.target.value)}
            aria-label="Repository to plan"
          >
            {projects.map((p) => (
              <option key={p.root} value={p.root}>
                {p.name}
              </option>
            ))}
          </select>
        )}
        {projects.length === 1 && <span className="group-count">{name}</span>}
        <span className="grow" />
        <button
          className="btn btn-sm"
          onClick={() => setLoads((n) => n + 1)}
          {...whyNot(
            root === undefined && 'No live sessions to plan',
            'Compare the ready sessions’ work again',
          )}
        >
          Plan again
        </button>
      </h2>
      {track !== undefined && <MergeProgress track={track} onDismiss={() => forgetStarted(storeKey)} />}
      {root === undefined ? (
        <div className="muted">No live sessions, so nothing to land.</div>
      ) : error !== undefined ? (
        <div className="error-text">{error}</div>
      ) : view === undefined ? (
        <div className="muted">Planning: comparing the ready sessions’ work…</div>
      ) : (
        <PlanSteps
          view={view}
          squash={squash}
          setSquash={setSquash}
          busy={busy}
          inQueue={inQueue}
          merge={(ids) => void merge(ids)}
        />
      )}
    </section>
  );
}

function PlanSteps(props: {
  view: MergePlanView;
  squash: boolean;
  setSquash: (v: boolean) => void;
  busy: boolean;
  inQueue: Set<string>;
  merge: (ids: string[]) => void;
}) {
  const { view } = props;
  const queued = view.steps.some((s) => props.inQueue.has(s.sessionId));
  return (
    <div className="plan">
      {view.steps.length === 0 ? (
        <div className="muted">
          No session is ready to land on <code>{view.base}</code>.
        </div>
      ) : (
        <>
          <div className="plan-head">
            <span className="muted">
              Onto <code>{view.base}</code> at <code>{view.baseCommit.slice(0, 12)}</code>, in this order:
            </span>
            <span className="grow" />
            <label className="toggle">
              <input
                type="checkbox"
                checked={props.squash}
                onChange={(e) => props.setSquash(e.target.checked)}
              />{' '}
              Squash
            </label>
            <button
              className="btn btn-sm btn-primary"
              {...whyNot(
                firstOf(
                  props.busy && 'A merge is being queued',
                  queued && 'Some of them are in the merge queue already',
                ),
                'Land them as one group, in this order: nothing lands unless all of them do',
              )}
              onClick={() => props.merge(view.steps.map((s) => s.sessionId))}
              data-testid="plan-merge-all"
            >
              Merge in this order
            </button>
          </div>
          <ol className="plan-steps">
            {view.steps.map((step) => (
              <li key={step.sessionId} className="plan-step" data-testid="plan-step" data-session={step.name}>
                <strong>{step.name}</strong>
                <span className={step.conflicts.length === 0 ? 'muted' : 'error-text'}>
                  {step.conflicts.length === 0
                    ? 'merges cleanly'
                    : `expect conflicts in ${step.conflicts.join(', ')}`}
                  {step.conflictsWith.length > 0 && `; overlaps ${step.conflictsWith.join(', ')}`}
                </span>
                <span className="grow" />
                <button
                  className="btn btn-sm"
                  {...whyNot(
                    firstOf(
                      props.inQueue.has(step.sessionId) && 'In the merge queue already',
                      props.busy && 'A merge is being queued',
                    ),
                    `Land ${step.name} alone`,
                  )}
                  onClick={() => props.merge([step.sessionId])}
                  data-testid="plan-merge-step"
                >
                  {props.inQueue.has(step.sessionId) ? 'Queued' : 'Merge'}
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
      {view.skipped.length > 0 && (
        <div className="muted plan-skipped">
          Not ready: {view.skipped.map((s) => `${s.name} (${s.reason})`).join(', ')}
        </div>
      )}
    </div>
  );
}
