/**
 * One merge as it goes: its steps (queued → merging → checking → landed or not), what it is
 * doing now, and once it ended what happened — the commit, or why nothing landed with the
 * conflicting files and the end of the check's output. Used by the session page, the group page
 * and the Landing page alike.
 */
import type { MergeResult } from '../../../src/api/merge.js';
import { ago } from '../format.js';
import { isFinal, type MergeTrack } from '../landing.js';

type StepState = 'done' | 'current' | 'todo' | 'skipped' | 'bad';

export function MergeProgress({ track, onDismiss }: { track: MergeTrack; onDismiss?: () => void }) {
  const names = track.sessions.map((s) => s.name).join(', ');
  const final = isFinal(track.phase);
  return (
    <div
      className={`merge-progress phase-${track.phase}`}
      data-testid="merge-progress"
      data-phase={track.phase}
      data-merge={track.mergeId}
      aria-live="polite"
    >
      <div className="merge-progress-head">
        <strong>{headline(track)}</strong>
        <span className="muted">
          {names} → <code>{track.base}</code>
          {track.squash ? ' · squash' : ''}
        </span>
        <span className="grow" />
        {track.result !== null && <span className="muted">{ago(track.result.finishedAt)} ago</span>}
        {final && onDismiss !== undefined && (
          <button className="btn btn-sm" onClick={onDismiss} title="Hide this result">
            Dismiss
          </button>
        )}
      </div>
      <ol className="merge-steps">
        {steps(track).map(([label, s]) => (
          <li key={label} className={`merge-step step-${s}`}>
            {label}
          </li>
        ))}
      </ol>
      <div className="merge-status" data-testid="merge-status">
        {status(track)}
      </div>
      {track.result !== null && <ResultDetail result={track.result} />}
    </div>
  );
}

function headline(track: MergeTrack): string {
  switch (track.phase) {
    case 'queued':
      return track.position > 1 ? `Queued · position ${track.position}` : 'Queued';
    case 'merging':
      return 'Merging…';
    case 'checking':
      return 'Checking…';
    case 'landed':
      return 'Landed';
    case 'conflicted':
    case 'failed':
      return 'Not landed';
  }
}

function steps(track: MergeTrack): [string, StepState][] {
  const at = { queued: 0, merging: 1, checking: 2, landed: 3, conflicted: 3, failed: 3 }[track.phase];
  const result = track.result;
  const mark = (i: number): StepState => (i < at ? 'done' : i === at ? 'current' : 'todo');
  let checking: [string, StepState] = ['Checking', mark(2)];
  if (result !== null) {
    if (result.check.outcome === 'none')
      checking = [
        result.outcome === 'conflicted' || result.reason === 'refused' ? 'Checking' : 'No check configured',
        'skipped',
      ];
    else checking = ['Checking', result.check.outcome === 'passed' ? 'done' : 'bad'];
  }
  const end: [string, StepState] =
    result === null
      ? ['Landed', mark(3)]
      : result.outcome === 'landed'
        ? ['Landed', 'done']
        : [result.outcome === 'conflicted' ? 'Conflict' : 'Not landed', 'bad'];
  const merging: [string, StepState] =
    result?.outcome === 'conflicted' ? ['Merging', 'bad'] : ['Merging', mark(1)];
  return [['Queued', mark(0)], merging, checking, end];
}

function status(track: MergeTrack) {
  const total = track.sessions.length;
  switch (track.phase) {
    case 'queued':
      return track.position > 1
        ? `Waiting: ${track.position - 1} merge${track.position === 2 ? '' : 's'} of ${track.project} ahead of it.`
        : 'Starting…';
    case 'merging':
      return (
        <>
          Merging onto <code>{track.base}</code>
          {track.baseCommit !== null && (
            <>
              {' '}
              at <code>{track.baseCommit.slice(0, 12)}</code>
            </>
          )}
          …
        </>
      );
    case 'checking':
      return (
        <>
          {track.checked !== null && track.checked < total && total > 1
            ? `Bisecting: checking the first ${track.checked} of ${total} with `
            : 'Checking: '}
          {/* A page opened mid-check knows the merge from the queue, which does not name the command. */}
          {track.command === null ? 'running the repository’s check…' : <code>{track.command}</code>}
        </>
      );
    case 'landed':
    case 'conflicted':
    case 'failed':
      return track.result?.message ?? '';
  }
}

export function ResultDetail({ result }: { result: MergeResult }) {
  if (result.outcome === 'landed') {
    return (
      <div className="merge-detail">
        {result.commit !== null && (
          <div>
            <code>{result.base}</code> is now at{' '}
            <code data-testid="merge-commit">{result.commit.slice(0, 12)}</code>
            {result.previous !== null && (
              <>
                {' '}
                (was <code>{result.previous.slice(0, 12)}</code>)
              </>
            )}
            .
          </div>
        )}
        {result.checkoutUpdated !== null && (
          <div className="muted">
            The checkout at <code>{result.checkoutUpdated}</code> was fast-forwarded to it.
          </div>
        )}
        <div className="muted">
          {result.sessions.length > 1 ? 'The sessions were' : 'The session was'} completed and removed
          {result.squash ? '; squashed, so its branch is kept (its own commits are not in the base).' : '.'}
        </div>
      </div>
    );
  }
  return (
    <div className="merge-detail">
      {result.files.length > 0 && (
        <div data-testid="merge-files">
          Conflicting files:
          <ul>
            {result.files.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {result.check.outputTail !== null && result.outcome === 'failed' && (
        <div>
          End of the check’s output:
          <pre className="merge-output" data-testid="merge-output">
            {result.check.outputTail}
          </pre>
        </div>
      )}
      {result.culprit !== null && (
        <div className="muted">
          {result.replied
            ? `Sent to ${result.culprit.name} as a reply, so its agent can fix it.`
            : `Could not send this to ${result.culprit.name}; reply to it yourself.`}
        </div>
      )}
    </div>
  );
}
