/**
 * Attempts: best-of groups and fan-outs. The list, a best-of group's comparison (the check on
 * each attempt, diff size, files, cost, time, conflicts with other work) with a Pick button that
 * lands the winner and archives the others, and a fan-out's report. Fetched when opened, and
 * again when a session of the shown group changes (the board's stream says so).
 */
import { useEffect, useMemo, useState } from 'react';
import type { AttemptGroupView, AttemptView, FanoutView, GroupSummary } from '../../../src/api/attempts.js';
import { api, errorText } from '../api.js';
import type { WorkspaceEvent } from '../../../src/events/workspace.js';
import { useBoard, workspaceListeners } from '../board.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { whyNot } from '../why.js';

export function AttemptsList() {
  const [groups, setGroups] = useState<GroupSummary[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const board = useBoard();
  const version = board.sessions.size;
  useEffect(() => {
    api.call('GET /api/attempts', { query: {} }).then(
      (list) => setGroups(list.groups),
      (e: unknown) => setError(errorText(e)),
    );
  }, [version]);
  return (
    <div className="landing-page" data-testid="attempts-page">
      <div className="review-head">
        <h1>Attempts</h1>
        <span className="muted">
          Best-of groups (one prompt, several sessions, one picked) and fan-outs (items in batches).
        </span>
      </div>
      {error !== undefined && <div className="error">{error}</div>}
      {groups === undefined ? (
        <div className="muted">Loading…</div>
      ) : groups.length === 0 ? (
        <div className="muted">
          None yet: `baton dispatch --best-of 3 "…"` or `baton fanout items.txt --prompt "…"` starts one.
        </div>
      ) : (
        [...groups].reverse().map((g) => (
          <a
            key={g.id}
            className="queue-row attempt-row"
            data-testid="attempt-group"
            data-group={g.id}
            href={pathOf(g)}
            onClick={(e) => {
              e.preventDefault();
              navigate(pathOf(g));
            }}
          >
            <span className="chip">{g.kind === 'best_of' ? 'best-of' : 'fan-out'}</span>
            <span className="grow">{firstLine(g.prompt)}</span>
            <span className="muted">
              {g.sessions} sessions · {g.project}
              {g.taskId === null ? '' : ` · task ${g.taskId}`}
            </span>
            <span className="chip">{g.state.replace(/_/g, ' ')}</span>
          </a>
        ))
      )}
    </div>
  );
}

/** Changes when a session of the group changes on the board (state, removal) or the group's own `attempt.*` event arrives. */
function useGroupVersion(groupId: string, ids: readonly string[]): string {
  const board = useBoard();
  const [events, setEvents] = useState(0);
  useEffect(() => {
    const listener = (event: WorkspaceEvent): void => {
      if (event.type.startsWith('attempt.') && 'groupId' in event.data && event.data.groupId === groupId)
        setEvents((n) => n + 1);
    };
    workspaceListeners.add(listener);
    return () => void workspaceListeners.delete(listener);
  }, [groupId]);
  const sessions = useMemo(
    () => ids.map((id) => `${id}:${board.sessions.get(id)?.state ?? 'gone'}`).join(','),
    [board.sessions, ids],
  );
  return `${events}|${sessions}`;
}

export function AttemptGroup({ id }: { id: string }) {
  const [group, setGroup] = useState<AttemptGroupView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [picking, setPicking] = useState<string | undefined>(undefined);
  const ids = useMemo(() => group?.attempts.map((a) => a.sessionId) ?? [], [group]);
  const version = useGroupVersion(id, ids);
  useEffect(() => {
    api.call('GET /api/attempts/:group', { params: { group: id }, query: {} }).then(
      (view) => {
        setGroup(view);
        setError(undefined);
      },
      (e: unknown) => setError(errorText(e)),
    );
  }, [id, version, picking]);
  if (error !== undefined)
    return (
      <div className="error" data-testid="attempt-error">
        {error}
      </div>
    );
  if (group === undefined) return <div className="muted">Loading…</div>;
  const open = group.state === 'open' || group.state === 'pick_failed';
  const pick = (a: AttemptView): void => {
    setPicking(a.sessionId);
    api.call('POST /api/attempts/pick', { body: { session: a.sessionId, group: group.id } }).then(
      () => toast(`Landing ${a.name}; the others are archived once it lands.`),
      (e: unknown) => {
        toast(errorText(e), 'error');
        setPicking(undefined);
      },
    );
  };
  return (
    <div className="landing-page" data-testid="attempt-comparison" data-state={group.state}>
      <div className="review-head">
        <h1>Best-of {group.id}</h1>
        <span className="muted">
          {group.project}
          {group.taskId === null ? '' : ` · task ${group.taskId}`} · {group.state.replace(/_/g, ' ')}
        </span>
      </div>
      <p className="attempt-prompt">{firstLine(group.prompt)}</p>
      {group.message !== null && (
        <p className="muted" data-testid="attempt-message">
          {group.message}
        </p>
      )}
      <table className="attempt-table">
        <thead>
          <tr>
            <th>Attempt</th>
            <th>Agent</th>
            <th>State</th>
            <th>Check</th>
            <th>Diff</th>
            <th>Files</th>
            <th>Cost</th>
            <th>Time</th>
            <th>Conflicts</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {group.attempts.map((a) => (
            <tr
              key={a.sessionId}
              data-testid="attempt"
              data-name={a.name}
              data-check={a.check.outcome}
              data-archived={String(a.archived)}
              data-winner={String(a.winner)}
            >
              <td>
                {a.name}
                {a.winner && ' ★'}
              </td>
              <td>{a.agent}</td>
              <td>
                <span className={`chip chip-${a.archived ? 'stopped' : a.state}`}>
                  {a.archived ? 'archived' : a.state.replace(/_/g, ' ')}
                </span>
              </td>
              <td title={a.check.outputTail ?? undefined}>{checkText(a)}</td>
              <td>
                +{a.diff.additions} −{a.diff.deletions}
              </td>
              <td title={a.diff.files.join('\n')}>{a.diff.files.length}</td>
              <td>{a.costUsd > 0 ? `$${a.costUsd.toFixed(2)}` : `${a.inputTokens + a.outputTokens} tok`}</td>
              <td>{a.seconds}s</td>
              <td>
                {a.conflicts.length === 0
                  ? 'none'
                  : a.conflicts.map((c) => `${c.with} (${c.level})`).join(', ')}
              </td>
              <td>
                {open && !a.archived && (
                  <button
                    className="btn btn-sm btn-primary"
                    {...whyNot(
                      picking !== undefined &&
                        `Landing ${picking === a.sessionId ? 'this attempt' : 'another attempt'} now`,
                      'Land this attempt and archive the others',
                    )}
                    onClick={() => pick(a)}
                  >
                    {picking === a.sessionId ? 'Landing…' : 'Pick'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function FanoutReport({ id }: { id: string }) {
  const [view, setView] = useState<FanoutView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const ids = useMemo(() => view?.batches.flatMap((b) => b.tries.map((t) => t.sessionId)) ?? [], [view]);
  const version = useGroupVersion(id, ids);
  useEffect(() => {
    api.call('GET /api/fanouts/:group', { params: { group: id } }).then(
      (report) => {
        setView(report);
        setError(undefined);
      },
      (e: unknown) => setError(errorText(e)),
    );
  }, [id, version]);
  if (error !== undefined) return <div className="error">{error}</div>;
  if (view === undefined) return <div className="muted">Loading…</div>;
  return (
    <div className="landing-page" data-testid="fanout-report">
      <div className="review-head">
        <h1>Fan-out {view.id}</h1>
        <span className="muted">
          {view.items} items · {view.batches.length} batches · {view.done} done, {view.failed} failed,{' '}
          {view.running} running
        </span>
      </div>
      <p className="attempt-prompt">{firstLine(view.prompt)}</p>
      {view.batches.map((b) => (
        <details key={b.batch} className="recent-row" data-testid="fanout-batch" data-state={b.state}>
          <summary>
            Batch {b.batch} · {b.state.replace(/_/g, ' ')} · {b.tries.map((t) => t.name).join(' → ')} · +
            {b.diff.additions} −{b.diff.deletions}
          </summary>
          <div className="muted">{b.items.join(', ')}</div>
          {b.finalMessage !== null && <blockquote>{b.finalMessage}</blockquote>}
        </details>
      ))}
    </div>
  );
}

function checkText(a: AttemptView): string {
  if (a.check.outcome === 'none') return 'no check';
  if (a.check.outcome === 'pending') return 'not yet';
  return `${a.check.outcome.replace(/_/g, ' ')}${a.check.durationMs === null ? '' : ` (${(a.check.durationMs / 1000).toFixed(1)}s)`}`;
}

function pathOf(g: GroupSummary): string {
  return `/${g.kind === 'best_of' ? 'attempts' : 'fanouts'}/${encodeURIComponent(g.id)}`;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  );
}
