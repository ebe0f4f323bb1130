/**
 * The Landing page: the merge queue as it moves, the order to land a repository's ready work in
 * (the plan, with the conflicts to expect), and what recent merges did. Everything here is
 * fetched when the page opens, never on the board's way in.
 */
import type { MergeResult } from '../../../src/api/merge.js';
import { ago } from '../format.js';
import { isFinal, refreshMerges, useLanding, useLandingFeed, type MergeTrack } from '../landing.js';
import { navigate } from '../router.js';
import { LandingPlan } from './LandingPlan.js';
import { MergeProgress, ResultDetail } from './MergeProgress.js';

export function Landing() {
  useLandingFeed();
  const { tracks, list } = useLanding();
  const running = [...tracks.values()]
    .filter((t) => !isFinal(t.phase))
    .sort((a, b) => a.project.localeCompare(b.project) || a.position - b.position);
  return (
    <div className="landing-page" data-testid="landing-page">
      <div className="review-head">
        <h1>Landing</h1>
        <span className="muted">
          The merge queue, the order to land ready work in, and what recent merges did.
        </span>
        <span className="grow" />
        <button className="btn btn-sm" onClick={() => void refreshMerges()}>
          Refresh
        </button>
      </div>

      <section className="landing-section" data-testid="merge-queue">
        <h2 className="group-title">
          Queue <span className="group-count">{running.length}</span>
        </h2>
        {list === undefined && running.length === 0 ? (
          <div className="muted">Loading…</div>
        ) : running.length === 0 ? (
          <div className="muted">No merge is running or waiting.</div>
        ) : (
          running.map((track) => <QueueRow key={track.mergeId} track={track} />)
        )}
      </section>

      <LandingPlan />

      <section className="landing-section" data-testid="merge-recent">
        <h2 className="group-title">Recent</h2>
        {list === undefined ? (
          <div className="muted">Loading…</div>
        ) : list.recent.length === 0 ? (
          <div className="muted">No merge has finished since the supervisor started.</div>
        ) : (
          list.recent.map((result) => (
            <RecentRow
              key={result.mergeId}
              result={result}
              multi={new Set(list.recent.map((r) => r.project)).size > 1}
            />
          ))
        )}
      </section>
    </div>
  );
}

function QueueRow({ track }: { track: MergeTrack }) {
  return (
    <div className="queue-row" data-testid="queue-row" data-merge={track.mergeId}>
      <span className="queue-position">{track.position}</span>
      <span className="muted">{track.project}</span>
      <div className="grow">
        <MergeProgress track={track} />
      </div>
    </div>
  );
}

function RecentRow({ result, multi }: { result: MergeResult; multi: boolean }) {
  const landed = result.outcome === 'landed';
  return (
    <details className="recent-row" data-testid="recent-row" data-outcome={result.outcome}>
      <summary>
        <span className={`chip ${landed ? 'chip-ready_for_review' : 'chip-failed'}`}>
          {landed ? 'landed' : 'not landed'}
        </span>
        {multi && <span className="muted">{result.project}</span>}
        <span className="recent-names">
          {result.sessions.map((s, i) => (
            <span key={s.sessionId}>
              {i > 0 && ', '}
              <a
                href={`/s/${s.sessionId}`}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(`/s/${s.sessionId}`);
                }}
              >
                {s.name}
              </a>
            </span>
          ))}{' '}
          → <code>{result.base}</code>
        </span>
        <span className="recent-message">{result.message}</span>
        <span className="muted">{ago(result.finishedAt)} ago</span>
      </summary>
      <ResultDetail result={result} />
    </details>
  );
}
