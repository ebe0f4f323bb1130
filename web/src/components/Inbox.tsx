/**
 * The inbox: every session waiting on you, with its question or approval in context (the last
 * few things it said and did), answered right here.
 */
import { useEffect, useRef, useState } from 'react';
import type { ConflictBadge } from '../../../src/api/conflicts.js';
import type { SessionView } from '../../../src/api/index.js';
import type { InboxItem } from '../../../src/api/web.js';
import { api, errorText } from '../api.js';
import { useBoard } from '../board.js';
import { matches, type Filter } from '../filter.js';
import { ago } from '../format.js';
import { useKeys } from '../keys.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { ConflictChip, decide, DecideButtons, respondUrl } from './Card.js';
import { EventLine } from './EventLine.js';
import { TaskTag } from './TaskTag.js';
import { OpenAlerts } from './Alerts.js';
import { firstOf, whyNot } from '../why.js';

export function Inbox({ filter }: { filter: Filter }) {
  const board = useBoard();
  const waiting = [...board.sessions.values()].filter((s) => s.state === 'needs_input');
  // Refetch the context whenever a waiting session appears, goes, or moves on.
  const signature = waiting
    .map((s) => `${s.id}:${s.lastSeq}`)
    .sort()
    .join(',');
  const [items, setItems] = useState<InboxItem[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let current = true;
    api.call('GET /api/inbox').then(
      (inbox) => current && (setItems(inbox.items), setError(undefined)),
      (e: unknown) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [signature]);

  // Until the context arrives (and in the server's HTML) the questions show on their own.
  const shown = items ?? waiting.map((session) => ({ session, context: [] }));
  const visible = shown.filter(
    (item) => board.sessions.get(item.session.id)?.state === 'needs_input' && matches(filter, item.session),
  );
  const [selected, setSelected] = useState(0);
  const index = Math.min(selected, Math.max(0, visible.length - 1));
  const current = visible[index];
  const replyRefs = useRef(new Map<string, HTMLTextAreaElement>());
  useKeys({
    j: () => setSelected(Math.min(visible.length - 1, index + 1)),
    k: () => setSelected(Math.max(0, index - 1)),
    Enter: () => current && navigate(`/s/${current.session.id}`),
    r: () => current && replyRefs.current.get(current.session.id)?.focus(),
    a: () => current && decide(current.session, 'allow'),
    d: () => current && decide(current.session, 'deny'),
  });

  if (error !== undefined) return <div className="empty error-text">{error}</div>;
  if (visible.length === 0) {
    return (
      <>
        <div className="empty">
          <h2>Inbox zero</h2>
          <p>No session is waiting on you. Questions and approvals show up here the moment they are asked.</p>
        </div>
        <OpenAlerts hideWhenNone />
      </>
    );
  }
  return (
    <div className="inbox" data-testid="inbox">
      <OpenAlerts hideWhenNone />
      {visible.map((item, i) => (
        <InboxCard
          key={item.session.id}
          item={item}
          live={board.sessions.get(item.session.id) ?? item.session}
          conflict={board.conflicts[item.session.id]}
          selected={i === index}
          replyRef={(el) =>
            el ? replyRefs.current.set(item.session.id, el) : replyRefs.current.delete(item.session.id)
          }
        />
      ))}
    </div>
  );
}

function InboxCard(props: {
  item: InboxItem;
  live: SessionView;
  conflict: ConflictBadge | undefined;
  selected: boolean;
  replyRef: (el: HTMLTextAreaElement | null) => void;
}) {
  const s = props.live;
  const reason = s.reason;
  return (
    <article className={`inbox-item${props.selected ? ' selected' : ''}`} data-session-id={s.id}>
      <header className="inbox-head">
        <a
          className="inbox-name"
          href={`/s/${s.id}`}
          onClick={(e) => (e.preventDefault(), navigate(`/s/${s.id}`))}
        >
          {s.name}
        </a>
        <TaskTag session={s} />
        <span className="inbox-task">{s.prompt}</span>
        <span className="grow" />
        <span className="muted">
          {s.project} · {s.agent} · waiting{' '}
          {/* The server rendered this a moment earlier; a second's drift is not worth a mismatch. */}
          <span suppressHydrationWarning>{ago(s.lastEventAt)}</span>
        </span>
      </header>
      {props.conflict && (
        <p className="inbox-conflict" data-testid="inbox-conflict">
          <ConflictChip badge={props.conflict} /> Will collide with{' '}
          {props.conflict.with
            .map(
              (w) =>
                `${w.base ? `base ${w.name}` : w.name} (${w.level === 'hot' ? 'same lines' : 'same files'})`,
            )
            .join(', ')}
          : answer with that in mind. See where: <code>baton conflicts {s.name}</code>
        </p>
      )}
      <ol className="context">
        {props.item.context
          .filter((e) => e.type !== 'question.asked' && e.type !== 'approval.requested')
          .filter(
            (e) => !(e.type === 'message.added' && reason?.kind === 'question' && e.text === reason.text),
          )
          .map((event) => (
            <li key={event.seq}>
              <EventLine event={event} />
            </li>
          ))}
      </ol>
      {reason?.kind === 'question' && (
        <>
          <div className="ask" data-testid="question">
            <span className="ask-label">asks</span> {reason.text}
          </div>
          <ReplyBox session={s} inputRef={props.replyRef} />
        </>
      )}
      {reason?.kind === 'approval' && (
        <>
          <div className="ask approval" data-testid="approval">
            <span className="ask-label">wants to run</span> <strong>{reason.tool}</strong>
            <pre className="approval-input">{reason.input}</pre>
            {reason.reason && <div className="muted">{reason.reason}</div>}
          </div>
          <DecideButtons session={s} className="row-actions" keys />
        </>
      )}
    </article>
  );
}

export function ReplyBox(props: {
  session: SessionView;
  inputRef?: (el: HTMLTextAreaElement | null) => void;
  autoFocus?: boolean;
  placeholder?: string;
}) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  // The server's HTML has Send enabled, so the form posts without JavaScript; the app disables it while empty.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const send = () => {
    if (text.trim() === '' || busy) return;
    setBusy(true);
    api.call('POST /api/sessions/:ref/reply', { params: { ref: props.session.id }, body: { text } }).then(
      () => {
        setText('');
        setBusy(false);
        toast(`Replied to ${props.session.name}`);
      },
      (error: unknown) => {
        setBusy(false);
        toast(errorText(error), 'error');
      },
    );
  };
  return (
    <form
      className="reply"
      method="post"
      action={respondUrl(props.session)}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <input type="hidden" name="action" value="reply" />
      <textarea
        name="text"
        required
        ref={props.inputRef}
        autoFocus={props.autoFocus}
        value={text}
        placeholder={
          props.placeholder ?? `Reply to ${props.session.name}…  (Enter sends, Shift+Enter for a new line)`
        }
        rows={2}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            send();
          }
        }}
      />
      <button
        className="btn btn-primary"
        type="submit"
        {...whyNot(hydrated && firstOf(busy && 'Sending…', text.trim() === '' && 'Write a reply first'))}
      >
        Send
      </button>
    </form>
  );
}
