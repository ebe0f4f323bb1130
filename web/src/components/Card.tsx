/** One session on the board: who, what, what it is doing right now, and what it has cost. */
import type { SessionView } from '../../../src/api/index.js';
import { api, errorText } from '../api.js';
import { ago, STATE_LABEL, tokens, usd } from '../format.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';

export function decide(session: SessionView, decision: 'allow' | 'deny'): void {
  if (session.state !== 'needs_input' || session.reason?.kind !== 'approval') return;
  api.approval(session.id, decision, session.reason.requestId).then(
    () => toast(`${decision === 'allow' ? 'Approved' : 'Denied'} ${session.name}`),
    (error: unknown) => toast(errorText(error), 'error'),
  );
}

export function Card(props: { session: SessionView; files: number | undefined; selected: boolean; now: number; onSelect: () => void }) {
  const s = props.session;
  const live = s.state === 'working' || s.state === 'starting';
  return (
    <article
      className={`card state-${s.state}${props.selected ? ' selected' : ''}`}
      data-session-id={s.id}
      data-state={s.state}
      onClick={() => {
        props.onSelect();
        navigate(`/s/${s.id}`);
      }}
    >
      <header className="card-head">
        <span className="card-name">{s.name}</span>
        {s.pinned && <span className="pin" title="Pinned">📌</span>}
        <span className={`chip chip-${s.state}`}>{STATE_LABEL[s.state]}</span>
      </header>
      <p className="card-task" title={s.prompt}>
        {s.prompt}
      </p>
      <div className="card-meta">
        <span>{s.project}</span>
        <span className="sep">·</span>
        <span>
          {s.agent}
          {s.model ? ` · ${s.model}` : ''}
        </span>
        {s.queuePosition !== null && (
          <>
            <span className="sep">·</span>
            <span>#{s.queuePosition} in queue</span>
          </>
        )}
      </div>
      <div className={`card-activity${live ? ' live' : ''}`} data-testid="activity">
        {live && <span className="pulse" />}
        <span className="activity-text">{s.activity ?? 'no activity yet'}</span>
      </div>
      {s.state === 'needs_input' && s.reason?.kind === 'approval' && (
        <div className="card-actions" onClick={(e) => e.stopPropagation()}>
          <button className="btn btn-sm btn-primary" onClick={() => decide(s, 'allow')}>
            Approve
          </button>
          <button className="btn btn-sm" onClick={() => decide(s, 'deny')}>
            Deny
          </button>
        </div>
      )}
      <footer className="card-foot">
        <span title="Files changed">{props.files === undefined ? '…' : props.files} files</span>
        <span title={`${s.inputTokens} in / ${s.outputTokens} out`}>{tokens(s.inputTokens + s.outputTokens)} tok</span>
        <span>{usd(s.costUsd)}</span>
        <span className="grow" />
        <span title={`created ${s.createdAt}`}>age {ago(s.createdAt, props.now)}</span>
        <span title={s.lastEventAt ?? ''}>last {ago(s.lastEventAt, props.now)}</span>
      </footer>
    </article>
  );
}
