/**
 * Landing one session from its page: the Merge and Open pull request buttons of its header,
 * and below the header the merge form, the merge's live progress and result, and the pull
 * request's link. A landed session is removed, so its page then shows what landed instead.
 */
import { lazy, Suspense, useState } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import { errorText } from '../api.js';
import { isFinal, LANDABLE_STATES, latestMergeOf, useLanding, useLandingFeed } from '../landing.js';
import { startPullRequest, usePullRequests } from '../pull-requests.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { whyNot } from '../why.js';

// The panels (form, progress, pull request) are loaded the first time one is shown.
const SessionPanels = lazy(() =>
  import('./SessionLandingPanels.js').then((m) => ({ default: m.SessionPanels })),
);
const MergeProgress = lazy(() =>
  import('./SessionLandingPanels.js').then((m) => ({ default: m.MergeProgress })),
);

/** By state, not by `running`: a session ready for review keeps its host, idle, for a reply. */
export function canLand(session: SessionView): boolean {
  return LANDABLE_STATES.includes(session.state);
}

export function LandingButtons({ session, onMerge }: { session: SessionView; onMerge: () => void }) {
  const { tracks } = useLanding();
  const prs = usePullRequests();
  if (!canLand(session)) return null;
  const track = latestMergeOf(tracks, session.id);
  const merging = track !== undefined && !isFinal(track.phase);
  const pushing = prs[session.id]?.status === 'pushing';
  const propose = () =>
    void startPullRequest(session.id).catch((error: unknown) => toast(errorText(error), 'error'));
  return (
    <>
      <button
        className="btn btn-sm"
        {...whyNot(pushing && 'Pushing its branch…', 'Push its branch and open a pull request')}
        onClick={propose}
        data-testid="pr-button"
      >
        {pushing ? 'Pushing…' : 'Open pull request'}
      </button>
      <button
        className="btn btn-sm btn-primary"
        {...whyNot(merging && 'Its merge is under way', `Land its work on ${session.baseRef} (m)`)}
        onClick={onMerge}
        data-testid="merge-button"
      >
        {merging ? 'Merging…' : 'Merge'}
      </button>
    </>
  );
}

/** Below the header: the form while asked, then the session's latest merge, and its pull request (loaded when there is one). */
export function SessionLanding({
  session,
  asking,
  onClose,
}: {
  session: SessionView;
  asking: boolean;
  onClose: () => void;
}) {
  useLandingFeed();
  const { tracks } = useLanding();
  const prs = usePullRequests();
  const [dismissed, setDismissed] = useState<string | undefined>();
  const latest = latestMergeOf(tracks, session.id);
  const track =
    latest !== undefined && latest.mergeId !== dismissed && !(asking && isFinal(latest.phase))
      ? latest
      : undefined;
  const pr = prs[session.id];
  const ask = asking && canLand(session);
  if (!ask && track === undefined && pr === undefined) return null;
  return (
    <Suspense fallback={null}>
      <SessionPanels
        session={session}
        asking={ask}
        track={track}
        pr={pr}
        onClose={onClose}
        onDismiss={setDismissed}
      />
    </Suspense>
  );
}

/** The page of a session that is gone: what its last merge did, when the page knows. */
export function LandedSession({ id, live }: { id: string; live: boolean }) {
  useLandingFeed();
  const { tracks } = useLanding();
  const track = latestMergeOf(tracks, id);
  if (track === undefined)
    return <div className="empty">{live ? 'This session does not exist (or was removed).' : 'Loading…'}</div>;
  const name = track.sessions.find((s) => s.sessionId === id)?.name ?? id;
  return (
    <div className="session-page" data-testid="landed-session">
      <header className="session-head">
        <div className="session-title">
          <a
            className="back"
            href="/"
            onClick={(e) => (e.preventDefault(), navigate('/'))}
            title="Back to the board (Esc)"
          >
            ←
          </a>
          <h1>{name}</h1>
          <span className="muted">{track.phase === 'landed' ? 'landed and removed' : 'removed'}</span>
          <span className="grow" />
          <a
            className="btn btn-sm"
            href="/landing"
            onClick={(e) => (e.preventDefault(), navigate('/landing'))}
          >
            Landing
          </a>
        </div>
      </header>
      <Suspense fallback={null}>
        <MergeProgress track={track} />
      </Suspense>
    </div>
  );
}
