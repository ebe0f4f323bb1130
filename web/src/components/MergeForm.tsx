/**
 * Asking to land work: what will happen, the squash option, and the button. Asked inline rather
 * than at one click, because a merge moves the base branch and removes the landed sessions.
 */
import { useState, type ReactNode } from 'react';
import { errorText } from '../api.js';
import { startMerge, type MergeTrack } from '../landing.js';
import { toast } from '../toast.js';
import { whyNot } from '../why.js';

export function MergeForm(props: {
  title: ReactNode;
  children?: ReactNode;
  /** Session ids, landed in this order unless `planned`. */
  sessions: string[];
  planned: boolean;
  /** Remembered as the merge this page started (see startMerge). */
  rememberAs?: string;
  submit: string;
  onStarted: (track: MergeTrack) => void;
  onCancel: () => void;
}) {
  const [squash, setSquash] = useState(false);
  const [busy, setBusy] = useState(false);
  const merge = async () => {
    setBusy(true);
    try {
      props.onStarted(
        await startMerge(props.sessions, {
          squash,
          planned: props.planned,
          ...(props.rememberAs === undefined ? {} : { key: props.rememberAs }),
        }),
      );
    } catch (error) {
      toast(errorText(error), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="merge-form" data-testid="merge-form">
      <div className="merge-form-title">{props.title}</div>
      {props.children !== undefined && <div className="merge-form-text">{props.children}</div>}
      <label className="toggle">
        <input
          type="checkbox"
          checked={squash}
          onChange={(e) => setSquash(e.target.checked)}
          data-testid="merge-squash"
        />
        Squash: one commit per session, titled by its prompt (its branch is then kept)
      </label>
      <div className="row-actions">
        <button
          className="btn btn-sm btn-primary"
          {...whyNot(busy && 'Queueing the merge…')}
          onClick={() => void merge()}
          data-testid="merge-submit"
        >
          {busy ? 'Queueing…' : props.submit}
        </button>
        <button
          className="btn btn-sm"
          {...whyNot(busy && 'The merge is being queued')}
          onClick={props.onCancel}
        >
          Cancel
        </button>
      </div>
    </div>
  );
}
