/** One session: header with actions, then its transcript, its diff, or its usage. */
import { lazy, Suspense, useState, useSyncExternalStore } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import { RESPAWNABLE_STATES } from '../../../src/events/states.js';
import { api, errorText } from '../api.js';
import { useBoard } from '../board.js';
import { ago, STATE_LABEL, tokens, usd } from '../format.js';
import { pendingFocus, useKeys } from '../keys.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { decide, DecideButtons } from './Card.js';
import { ConflictPanel } from './Conflicts.js';
import { EvidenceChip, EvidencePanel } from './Evidence.js';
import { ReplyBox } from './Inbox.js';
import { canLand, LandedSession, LandingButtons, SessionLanding } from './SessionLanding.js';
import { Transcript } from './Transcript.js';

// diff2html is the biggest dependency and only this tab needs it.
const DiffView = lazy(() => import('./DiffView.js').then((m) => ({ default: m.DiffView })));
const UsageChart = lazy(() => import('./UsageChart.js').then((m) => ({ default: m.UsageChart })));

const TABS = ['transcript', 'changes', 'usage'] as const;
type Tab = (typeof TABS)[number];

/**
 * The open tab lives in the address's fragment (`#changes`). The page arrives rendered and its
 * script after it, so a tab is a link: one clicked before the script has loaded still opens once
 * it has (a button's click would be lost), and a tab can be linked to. The server never sees the
 * fragment and renders the transcript; hydration starts from that, then reads the fragment
 * (decision 426, "A session's tabs are links to the address's fragment").
 *
 * Only a fragment that names a tab (or none) moves the tab: the diff's list of files links each
 * file to its place by a fragment of its own (`#d2h-…`), and following it keeps the diff open
 * (decision 428, "Only a fragment that names a tab moves the tab").
 */
function useTab(): [Tab, (tab: Tab) => void] {
  const hash = useSyncExternalStore(
    subscribeHash,
    () => location.hash,
    () => '',
  );
  const named = hash === '' ? 'transcript' : TABS.find((t) => `#${t}` === hash);
  // Set while rendering, as React's own "state from a changing input" does: the tab a foreign
  // fragment leaves open is the one named last, and a new page starts from the transcript.
  const [tab, setTab] = useState<Tab>(named ?? 'transcript');
  if (named !== undefined && named !== tab) setTab(named);
  const open = (next: Tab): void => {
    // Replaced rather than pushed: Back leaves the page rather than stepping through its tabs.
    history.replaceState(null, '', next === 'transcript' ? location.pathname + location.search : `#${next}`);
    dispatchEvent(new HashChangeEvent('hashchange'));
  };
  return [named ?? tab, open];
}

function subscribeHash(listener: () => void): () => void {
  addEventListener('hashchange', listener);
  return () => removeEventListener('hashchange', listener);
}

export function SessionPage({ id }: { id: string }) {
  const board = useBoard();
  const session = board.sessions.get(id);
  const [tab, setTab] = useTab();
  const [asking, setAsking] = useState(false);
  const [focusReply] = useState(() => {
    const wanted = pendingFocus.reply;
    pendingFocus.reply = false;
    return wanted;
  });
  useKeys({
    Escape: () => navigate('/'),
    r: () => document.querySelector<HTMLTextAreaElement>('.session-reply textarea')?.focus(),
    a: () => session && decide(session, 'allow'),
    d: () => session && decide(session, 'deny'),
    1: () => setTab('transcript'),
    2: () => setTab('changes'),
    3: () => setTab('usage'),
    m: () => session && canLand(session) && setAsking(true),
  });

  // A landed session is removed: its page then says what landed.
  if (session === undefined) return <LandedSession id={id} live={board.status === 'live'} />;
  return (
    <div className="session-page" data-testid="session-page" data-state={session.state}>
      <Header session={session} files={board.changes[session.id]} onMerge={() => setAsking(true)} />
      <SessionLanding session={session} asking={asking} onClose={() => setAsking(false)} />
      {['needs_input', 'failed', 'stopped'].includes(session.state) && <Waiting session={session} />}
      <ConflictPanel sessionId={session.id} badge={board.conflicts[session.id]} />
      <EvidencePanel session={session} />
      <div className="tabs" role="tablist">
        {TABS.map((t, i) => (
          <a
            key={t}
            role="tab"
            href={`#${t}`}
            aria-selected={tab === t}
            className={`tab${tab === t ? ' active' : ''}`}
            onClick={(e) => (e.preventDefault(), setTab(t))}
          >
            {t === 'transcript'
              ? 'Transcript'
              : t === 'changes'
                ? `Changes${board.changes[session.id] ? ` (${board.changes[session.id]})` : ''}`
                : 'Usage'}
            <kbd>{i + 1}</kbd>
          </a>
        ))}
      </div>
      <div className="tab-body">
        {tab === 'transcript' && <Transcript key={session.id} session={session} />}
        <Suspense fallback={<div className="empty">Loading…</div>}>
          {tab === 'changes' && <DiffView session={session} />}
          {tab === 'usage' && <UsageChart session={session} />}
        </Suspense>
      </div>
      {(session.running || RESPAWNABLE_STATES.includes(session.state)) && (
        <div className="session-reply">
          <ReplyBox session={session} autoFocus={focusReply} placeholder={replyPlaceholder(session)} />
        </div>
      )}
    </div>
  );
}

/** A session that is not running takes a reply by resuming; the box says so before you type. */
function replyPlaceholder(session: SessionView): string {
  if (session.state === 'needs_input') return 'Answer…';
  if (!session.running) return 'Reply to resume the session: your message is its next turn…';
  return 'Send a follow-up…';
}

function Header({
  session: s,
  files,
  onMerge,
}: {
  session: SessionView;
  files: number | undefined;
  onMerge: () => void;
}) {
  const act = (action: 'interrupt' | 'stop' | 'respawn' | 'done') =>
    api.call(`POST /api/sessions/:ref/${action}`, { params: { ref: s.id } }).then(
      () => toast(`${action[0]?.toUpperCase()}${action.slice(1)}: ${s.name}`),
      (error: unknown) => toast(errorText(error), 'error'),
    );
  const active =
    s.state === 'working' || s.state === 'needs_input' || s.state === 'starting' || s.state === 'preparing';
  return (
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
        <h1>{s.name}</h1>
        <span className={`chip chip-${s.state}`} data-testid="state-chip">
          {STATE_LABEL[s.state]}
        </span>
        <EvidenceChip session={s} />
        <span className="grow" />
        <div className="actions">
          {/* The combined review of the group this session is in (the API takes a member's name for the group). */}
          <a
            className="btn btn-sm"
            href={`/review/${encodeURIComponent(s.project)}/${encodeURIComponent(s.name)}`}
            onClick={(e) => (
              e.preventDefault(),
              navigate(`/review/${encodeURIComponent(s.project)}/${encodeURIComponent(s.name)}`)
            )}
            data-testid="review-link"
          >
            Review with coupled work
          </a>
          <button
            className="btn btn-sm"
            onClick={() =>
              void api
                .call('POST /api/sessions/:ref/pin', { params: { ref: s.id }, body: { pinned: !s.pinned } })
                .catch((e: unknown) => toast(errorText(e), 'error'))
            }
          >
            {s.pinned ? 'Unpin' : 'Pin'}
          </button>
          {active && s.running && (
            <button className="btn btn-sm" onClick={() => void act('interrupt')}>
              Interrupt
            </button>
          )}
          {(s.running || s.state === 'queued') && (
            <button className="btn btn-sm btn-danger" onClick={() => void act('stop')}>
              Stop
            </button>
          )}
          {RESPAWNABLE_STATES.includes(s.state) && (
            <button className="btn btn-sm" onClick={() => void act('respawn')}>
              Respawn
            </button>
          )}
          {s.state === 'ready_for_review' && (
            <button className="btn btn-sm btn-primary" onClick={() => void act('done')}>
              Mark done
            </button>
          )}
          <LandingButtons session={s} onMerge={onMerge} />
        </div>
      </div>
      <p className="session-task">{s.prompt}</p>
      <dl className="session-facts">
        <Fact label="Project" value={s.project} />
        <Fact label="Agent" value={`${s.agent}${s.model ? ` · ${s.model}` : ''}`} />
        {s.machine !== undefined && <Fact label="Machine" value={s.machine} />}
        <Fact label="Branch" value={`${s.branch} ← ${s.baseRef}`} />
        <Fact label="Files" value={files === undefined ? '…' : String(files)} />
        <Fact label="Tokens" value={`${tokens(s.inputTokens)} in · ${tokens(s.outputTokens)} out`} />
        <Fact label="Cost" value={usd(s.costUsd)} />
        <Fact label="Age" value={ago(s.createdAt)} clock />
        <Fact label="Last activity" value={ago(s.lastEventAt)} clock />
      </dl>
      <div className={`session-activity${s.state === 'working' ? ' live' : ''}`}>
        {s.state === 'working' && <span className="pulse" />} {s.activity ?? 'no activity yet'}
      </div>
    </header>
  );
}

/** `clock`: a time relative to now, which may have moved on since the server rendered it. */
function Fact({ label, value, clock = false }: { label: string; value: string; clock?: boolean }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd suppressHydrationWarning={clock}>{value}</dd>
    </div>
  );
}

function Waiting({ session }: { session: SessionView }) {
  const reason = session.reason;
  if (reason?.kind === 'approval') {
    return (
      <div className="waiting approval" data-testid="approval">
        <div>
          <span className="ask-label">Approval needed</span> <strong>{reason.tool}</strong>
          {reason.reason && <span className="muted"> — {reason.reason}</span>}
        </div>
        <pre className="approval-input">{reason.input}</pre>
        <DecideButtons session={session} className="row-actions" keys />
      </div>
    );
  }
  if (reason?.kind === 'question') {
    return (
      <div className="waiting" data-testid="question">
        <span className="ask-label">Asks</span> {reason.text}
      </div>
    );
  }
  // Why it failed or was stopped, in the agent's own words when it gave them (decision 155).
  if (reason !== null && (session.state === 'failed' || session.state === 'stopped')) {
    return (
      <div className="waiting failure" data-testid="failure">
        <span className="ask-label">{session.state === 'failed' ? 'Failed' : 'Stopped'}</span>{' '}
        {reason.kind === 'error' || reason.kind === 'note' ? reason.message : ''}
      </div>
    );
  }
  return null;
}
