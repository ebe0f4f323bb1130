/**
 * The session page's landing panels, loaded when there is one to show: the merge form, the
 * merge's progress and result, the pull request's link. Kept out of the board's bundle.
 */
import type { SessionView } from '../../../src/api/index.js';
import type { PrView } from '../../../src/api/merge.js';
import type { MergeTrack } from '../landing.js';
import type { PullRequestState } from '../pull-requests.js';
import { dismissPullRequest } from '../pull-requests.js';
import { EvidencePanel } from './Evidence.js';
import { MergeForm } from './MergeForm.js';
import { MergeProgress } from './MergeProgress.js';

export { MergeProgress };

export function SessionPanels(props: {
  session: SessionView;
  asking: boolean;
  track: MergeTrack | undefined;
  pr: PullRequestState | undefined;
  onClose: () => void;
  onDismiss: (mergeId: string) => void;
}) {
  const { session, track, pr } = props;
  const late = session.state === 'failed' || session.state === 'stopped';
  return (
    <div className="session-landing">
      {props.asking && (
        <MergeForm
          title={
            <>
              Land <strong>{session.name}</strong> on <code>{session.baseRef}</code>
            </>
          }
          sessions={[session.id]}
          planned={false}
          submit={`Merge into ${session.baseRef}`}
          onStarted={props.onClose}
          onCancel={props.onClose}
        >
          <EvidencePanel session={session} />
          {late && (
            <p className="warn-text">
              Its agent {session.state === 'failed' ? 'failed' : 'was stopped'} before saying it was finished:
              look at the changes first.
            </p>
          )}
          Its uncommitted work is committed on <code>{session.branch}</code> first. The merge runs in a
          scratch worktree and the repository’s check (if one is configured) must pass; only then does{' '}
          <code>{session.baseRef}</code> move. Once landed, the session is completed and its worktree removed.
        </MergeForm>
      )}
      {track !== undefined && (
        <MergeProgress track={track} onDismiss={() => props.onDismiss(track.mergeId)} />
      )}
      {pr !== undefined && (
        <PullRequestPanel sessionId={session.id} pushing={pr.status === 'pushing'} view={pr.view} />
      )}
    </div>
  );
}

/** A link only for a web address: the URL comes from gh's output, which the page does not trust. */
function safeUrl(url: string | null): string | undefined {
  return url !== null && /^https?:\/\//i.test(url) ? url : undefined;
}

function PullRequestPanel({
  sessionId,
  pushing,
  view,
}: {
  sessionId: string;
  pushing: boolean;
  view: PrView | undefined;
}) {
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
        Pushed <code>{view.branch}</code> (<code>{view.commit.slice(0, 12)}</code>) to{' '}
        <code>{view.remote}</code>.
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
