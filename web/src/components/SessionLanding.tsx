/**
 * Landing one session from its page: the Merge and Open pull request buttons of its header,
 * and below the header the merge form, the merge's live progress and result, and the pull
 * request's link. A landed session is removed, so its page then shows what landed instead.
 */
import { useState } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import type { PrView } from '../../../src/api/merge.js';
import type { SessionState } from '../../../src/events/states.js';
import { errorText } from '../api.js';
import { dismissPullRequest, isFinal, latestMergeOf, startPullRequest, useLanding, useLandingFeed } from '../landing.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { MergeForm } from './MergeForm.js';
import { MergeProgress } from './MergeProgress.js';

/** Sessions whose agent is not changing the work: these may land (as the merge domain allows). */
const MERGEABLE: readonly SessionState[] = ['ready_for_review', 'completed', 'stopped', 'failed'];

export function canLand(session: SessionView): boolean {
  return !session.running && MERGEABLE.includes(session.state);
}

export function LandingButtons({ session, onMerge }: { session: SessionView; onMerge: () => void }) {
  const { tracks, prs } = useLanding();
  if (!canLand(session)) return null;
  const track = latestMergeOf(tracks, session.id);
  const merging = track !== undefined && !isFinal(track.phase);
  const pushing = prs[session.id]?.status === 'pushing';
  const propose = () => void startPullRequest(session.id).catch((error: unknown) => toast(errorText(error), 'error'));
  return (
    <>
      <button className="btn btn-sm" disabled={pushing} onClick={propose} data-testid="pr-button" title="Push its branch and open a pull request">
        {pushing ? 'Pushing…' : 'Open pull request'}
      </button>
      <button className="btn btn-sm btn-primary" disabled={merging} onClick={onMerge} data-testid="merge-button" title={`Land its work on ${session.baseRef} (m)`}>
        {merging ? 'Merging…' : 'Merge'}
      </button>
    </>
  );
}

/** Below the header: the form while asked, then the session's latest merge, and its pull request. */
export function SessionLanding({ session, asking, onClose }: { session: SessionView; asking: boolean; onClose: () => void }) {
  useLandingFeed();
  const { tracks, prs } = useLanding();
  const [dismissed, setDismissed] = useState<string | undefined>();
  const track = latestMergeOf(tracks, session.id);
  const pr = prs[session.id];
  const shown = track !== undefined && track.mergeId !== dismissed && !(asking && isFinal(track.phase));
  if (!asking && !shown && pr === undefined) return null;
  const late = session.state === 'failed' || session.state === 'stopped';
  return (
    <div className="session-landing">
      {asking && canLand(session) && (
        <MergeForm
          title={
            <>
              Land <strong>{session.name}</strong> on <code>{session.baseRef}</code>
            </>
          }
          sessions={[session.id]}
          planned={false}
          submit={`Merge into ${session.baseRef}`}
          onStarted={onClose}
          onCancel={onClose}
        >
          {late && <p className="warn-text">Its agent {session.state === 'failed' ? 'failed' : 'was stopped'} before saying it was finished: look at the changes first.</p>}
          Its uncommitted work is committed on <code>{session.branch}</code> first. The merge runs in a scratch worktree and the repository’s check (if one is configured) must pass; only then does{' '}
          <code>{session.baseRef}</code> move. Once landed, the session is completed and its worktree removed.
        </MergeForm>
      )}
      {shown && <MergeProgress track={track} onDismiss={() => setDismissed(track.mergeId)} />}
      {pr !== undefined && <PullRequestPanel sessionId={session.id} pushing={pr.status === 'pushing'} view={pr.view} />}
    </div>
  );
}

/** The page of a session that is gone: what its last merge did, when the page knows. */
export function LandedSession({ id, live }: { id: string; live: boolean }) {
  useLandingFeed();
  const { tracks } = useLanding();
  const track = latestMergeOf(tracks, id);
  if (track === undefined) return <div className="empty">{live ? 'This session does not exist (or was removed).' : 'Loading…'}</div>;
  const name = track.sessions.find((s) => s.sessionId === id)?.name ?? id;
  return (
    <div className="session-page" data-testid="landed-session">
      <header className="session-head">
        <div className="session-title">
          <a className="back" href="/" onClick={(e) => (e.preventDefault(), navigate('/'))} title="Back to the board (Esc)">
            ←
          </a>
          <h1>{name}</h1>
          <span className="muted">{track.phase === 'landed' ? 'landed and removed' : 'removed'}</span>
          <span className="grow" />
          <a className="btn btn-sm" href="/landing" onClick={(e) => (e.preventDefault(), navigate('/landing'))}>
            Landing
          </a>
        </div>
      </header>
      <MergeProgress track={track} />
    </div>
  );
}

/** A link only for a web address: the URL comes from gh's output, which the page does not trust. */
function safeUrl(url: string | null): string | undefined {
  return url !== null && /^https?:\/\//i.test(url) ? url : undefined;
}

function PullRequestPanel({ sessionId, pushing, view }: { sessionId: string; pushing: boolean; view: PrView | undefined }) {
  if (pushing || view === undefined) {
    return (
      <div className="pr-panel" data-testid="pr-panel" data-status="pushing">
        Pushing the branch and opening a pull request…
      </div>
    );
  }
  const href = safeUrl(view.url);
  return (
    <div className="pr-panel" data-testid="pr-panel" data-status="opened" data-via={view.via}>
      <div className="merge-progress-head">
        <strong>{view.via === 'gh' ? 'Pull request opened' : 'Branch pushed'}</strong>
        <span className="grow" />
        <button className="btn btn-sm" onClick={() => dismissPullRequest(sessionId)}>
          Dismiss
        </button>
      </div>
      {view.committedWork && (
        <div>
          Committed its uncommitted work on <code>{view.branch}</code>.
        </div>
      )}
      <div>
        Pushed <code>{view.branch}</code> (<code>{view.commit.slice(0, 12)}</code>) to <code>{view.remote}</code>.
      </div>
      {view.url !== null && (
        <div data-testid="pr-link">
          {view.via === 'gh' ? `Pull request into ${view.base}: ` : 'Open the pull request: '}
          {href !== undefined ? (
            <a href={href} target="_blank" rel="noopener noreferrer">
              {view.url}
            </a>
          ) : (
            <code>{view.url}</code>
          )}
        </div>
      )}
      {view.note !== null && (
        <div className="muted" data-testid="pr-note">
          Not opened with gh: {view.note}
        </div>
      )}
    </div>
  );
}
