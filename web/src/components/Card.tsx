/** One session on the board: who, what, what it is doing right now, and what it has cost. */
import { memo } from 'react';
import type { ConflictBadge } from '../../../src/api/conflicts.js';
import type { SessionView } from '../../../src/api/index.js';
import { api, errorText } from '../api.js';
import { ago, STATE_LABEL, tokens, usd } from '../format.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { EvidenceChip } from './Evidence.js';
import { TaskTag } from './TaskTag.js';

/** `always`: approve, and add an allow rule for calls like it in this repository (src/policy). */
export function decide(session: SessionView, decision: 'allow' | 'deny', always = false): void {
  if (session.state !== 'needs_input' || session.reason?.kind !== 'approval') return;
  const body = {
    decision,
    ...(session.reason.requestId ? { requestId: session.reason.requestId } : {}),
    ...(always ? { always: true } : {}),
  };
  api.call('POST /api/sessions/:ref/approval', { params: { ref: session.id }, body }).then(
    () =>
      toast(
        `${decision === 'allow' ? 'Approved' : 'Denied'} ${session.name}${always ? '; calls like it are approved here from now on' : ''}`,
      ),
    (error: unknown) => toast(errorText(error), 'error'),
  );
}

/** Where the page's forms post when JavaScript is off; with it, the handlers call the API instead. */
export function respondUrl(session: SessionView): string {
  return `/s/${encodeURIComponent(session.id)}/respond`;
}

/**
 * Approve and Deny for a pending approval. They are a form, so they work from the server's HTML
 * alone; once the app runs, a click calls the API and the form is never submitted.
 */
export function DecideButtons(props: {
  session: SessionView;
  className: string;
  small?: boolean;
  keys?: boolean;
}) {
  const s = props.session;
  if (s.state !== 'needs_input' || s.reason?.kind !== 'approval') return null;
  const size = props.small ? ' btn-sm' : '';
  const click =
    (decision: 'allow' | 'deny', always = false) =>
    (e: React.MouseEvent) => {
      e.preventDefault();
      decide(s, decision, always);
    };
  // The gate's own approvals cannot become allow rules (the gate wins); the supervisor refuses them too.
  const byGate = s.reason.reason?.startsWith("Baton's gate") === true;
  return (
    <form
      className={props.className}
      method="post"
      action={respondUrl(s)}
      onClick={(e) => e.stopPropagation()}
    >
      <input type="hidden" name="requestId" value={s.reason.requestId} />
      <button className={`btn btn-primary${size}`} name="action" value="approve" onClick={click('allow')}>
        Approve
        {props.keys && (
          <>
            {' '}
            <kbd>a</kbd>
          </>
        )}
      </button>
      <button className={`btn${size}`} name="action" value="deny" onClick={click('deny')}>
        Deny
        {props.keys && (
          <>
            {' '}
            <kbd>d</kbd>
          </>
        )}
      </button>
      {!byGate && (
        <button
          className={`btn${size}`}
          type="button"
          title="Approve, and from now on approve calls like it in this repository without asking"
          onClick={click('allow', true)}
        >
          Always allow in this repository
        </button>
      )}
    </form>
  );
}

/** Memoised: a stream update re-renders the one card whose session changed, not the board. */
export const Card = memo(function Card(props: {
  session: SessionView;
  files: number | undefined;
  conflict?: ConflictBadge | undefined;
  selected: boolean;
  now: number;
  onSelect: (id: string) => void;
}) {
  const s = props.session;
  const live = s.state === 'working' || s.state === 'starting' || s.state === 'preparing';
  return (
    <article
      className={`card state-${s.state}${props.selected ? ' selected' : ''}`}
      data-session-id={s.id}
      data-state={s.state}
      onClick={() => {
        props.onSelect(s.id);
        navigate(`/s/${s.id}`);
      }}
    >
      {/* The name has the head to itself (the chips wrap below it when it is long): the task goes on the line below. */}
      <header className="card-head">
        <span className="card-name">{s.name}</span>
        {s.pinned && <PinIcon />}
        {props.conflict && <ConflictChip badge={props.conflict} />}
        <span className={`chip chip-${s.state}`}>{STATE_LABEL[s.state]}</span>
        <EvidenceChip session={s} />
      </header>
      <p className="card-task" title={s.prompt}>
        {s.task !== null && s.task !== undefined && (
          <>
            <TaskTag session={s} />{' '}
          </>
        )}
        {promptBesideTask(s)}
      </p>
      <div className="card-meta">
        <span>{s.project}</span>
        <span className="sep">·</span>
        <span>
          {s.agent}
          {s.model ? ` · ${s.model}` : ''}
        </span>
        {s.machine !== undefined && (
          <>
            <span className="sep">·</span>
            <span className="card-machine" title="The machine running it">
              on {s.machine}
            </span>
          </>
        )}
        {s.ports !== undefined && s.ports.length > 0 && (
          <>
            <span className="sep">·</span>
            <span className="card-ports" title={s.ports.map((p) => `${p.name}=${p.port}`).join(' ')}>
              ports {s.ports.map((p) => p.port).join(', ')}
            </span>
          </>
        )}
        {s.queuePosition !== null && (
          <>
            <span className="sep">·</span>
            <span title={s.heldBy}>
              #{s.queuePosition} in queue{s.heldBy === undefined ? '' : `: ${s.heldBy}`}
            </span>
          </>
        )}
      </div>
      <div className={`card-activity${live ? ' live' : ''}`} data-testid="activity">
        {live && <span className="pulse" />}
        <span className="activity-text">
          {s.state === 'failed' && s.reason?.kind === 'error'
            ? s.reason.message
            : (s.activity ?? 'no activity yet')}
        </span>
      </div>
      <DecideButtons session={s} className="card-actions" small />
      <footer className="card-foot">
        {/* Absent until measured (a moment after a session starts): never a placeholder. */}
        {props.files !== undefined && (
          <span title="Files changed" data-testid="files">
            {props.files} {props.files === 1 ? 'file' : 'files'}
          </span>
        )}
        <span title={`${s.inputTokens} in / ${s.outputTokens} out`}>
          {tokens(s.inputTokens + s.outputTokens)} tok
        </span>
        <span>{usd(s.costUsd)}</span>
        <span className="grow" />
        {/* The server rendered these a moment earlier; a second's drift is not worth a mismatch. */}
        <span title={`created ${s.createdAt}`} suppressHydrationWarning>
          {`age ${ago(s.createdAt, props.now)}`}
        </span>
        <span title={s.lastEventAt ?? ''} suppressHydrationWarning>
          {`last ${ago(s.lastEventAt, props.now)}`}
        </span>
      </footer>
    </article>
  );
});

/**
 * The prompt, less the task's title when the prompt starts with it (a session started from a task is
 * given "title\n\ndescription"): the title is already in the task tag just before it.
 */
export function promptBesideTask(s: Pick<SessionView, 'prompt' | 'task'>): string {
  const title = s.task?.title;
  if (title === undefined || title === '' || !s.prompt.startsWith(title)) return s.prompt;
  return s.prompt.slice(title.length).trim();
}

/** Who this session will collide with before anyone merges (the conflict radar): `baton conflicts <name>` shows where. */
export function ConflictChip({ badge }: { badge: ConflictBadge }) {
  const name = (w: ConflictBadge['with'][number]): string => (w.base ? `base ${w.name}` : w.name);
  // Each level names its own sides: a soft neighbour of a hot session is not shown as hot.
  const label = (['hot', 'soft'] as const)
    .map((level) => {
      const names = badge.with.filter((w) => w.level === level).map(name);
      if (names.length === 0) return null;
      return `${level} · ${names[0]}${names.length > 1 ? ` +${names.length - 1}` : ''}`;
    })
    .filter((part) => part !== null)
    .join(' · ');
  const title = `${badge.level === 'hot' ? 'Same lines as' : 'Same files as'} ${badge.with.map((w) => `${name(w)} (${w.level})`).join(', ')}`;
  return (
    <span className={`conflict conflict-${badge.level}`} data-testid="conflict" title={title}>
      {label}
    </span>
  );
}

/** Drawn rather than an emoji: the pushpin emoji is missing from many system fonts (a box instead). */
function PinIcon() {
  return (
    <svg className="pin" viewBox="0 0 16 16" width="14" height="14" role="img" aria-label="Pinned">
      <title>Pinned</title>
      <path d="M5 1.5h6l-1 1.5v3.2l2.5 2.3v1.5H8.75V15h-1.5V10H3.5V8.5L6 6.2V3z" fill="currentColor" />
    </svg>
  );
}
