/** The review entry: each project's coupled groups, with their members and why they are coupled. */
import { useEffect, useState } from 'react';
import type { ReviewGroupList } from '../../../src/api/review.js';
import { api, errorText } from '../api.js';
import { useBoard } from '../board.js';
import { navigate } from '../router.js';
import { SessionTag } from './ReviewTags.js';

const SHOWN_REASONS = 6;

export function ReviewList() {
  const [list, setList] = useState<ReviewGroupList | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loads, setLoads] = useState(0);
  // Regrouped when a session arrives, leaves or ends a turn (its state changes), not on every event.
  const board = useBoard();
  const turns = [...board.sessions.values()].map((s) => `${s.id}:${s.state}`).join(',');
  useEffect(() => {
    let current = true;
    api.call('GET /api/review/groups').then(
      (l) => current && (setList(l), setError(undefined)),
      (e: unknown) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [loads, turns]);

  if (error !== undefined) return <div className="empty error-text">{error}</div>;
  if (list === undefined) return <div className="empty">Grouping the sessions’ work…</div>;
  const projects = list.projects.filter((p) => p.groups.length > 0);
  if (projects.length === 0) return <div className="empty">No live sessions to review.</div>;
  return (
    <div className="review-list" data-testid="review-list">
      <div className="review-head">
        <h1>Review</h1>
        <span className="muted">
          Sessions whose work touches the same code are reviewed together, as one diff.
        </span>
        <span className="grow" />
        <button className="btn btn-sm" onClick={() => setLoads((n) => n + 1)}>
          Refresh
        </button>
      </div>
      {projects.map((project) => (
        <section key={project.root} className="review-project">
          {projects.length > 1 && <h2 className="group-title">{project.project}</h2>}
          {project.groups.map((group) => {
            const href = `/review/${encodeURIComponent(project.project)}/${group.number}`;
            const names = group.members.map((m) => m.name);
            return (
              <a
                key={group.number}
                href={href}
                className="review-group-card"
                data-testid="review-group"
                data-group={group.number}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(href);
                }}
              >
                <div className="review-group-title">
                  <span className="review-number">Group {group.number}</span>
                  {group.members.map((m) => (
                    <SessionTag key={m.id} names={names} name={m.name} />
                  ))}
                  <span className="muted">
                    {group.members
                      .map((m) => `${m.name}: ${m.filesChanged} file${m.filesChanged === 1 ? '' : 's'}`)
                      .join(' · ')}
                  </span>
                </div>
                {group.reasons.length === 0 ? (
                  <div className="muted review-reason">
                    Not coupled with other sessions: a review of its own.
                  </div>
                ) : (
                  <ul className="review-reasons">
                    {group.reasons.slice(0, SHOWN_REASONS).map((r, i) => (
                      <li key={i}>{r.text}</li>
                    ))}
                    {group.reasons.length > SHOWN_REASONS && (
                      <li className="muted">… and {group.reasons.length - SHOWN_REASONS} more</li>
                    )}
                  </ul>
                )}
              </a>
            );
          })}
        </section>
      ))}
      <div className="muted review-ms">Computed in {list.ms} ms.</div>
    </div>
  );
}
