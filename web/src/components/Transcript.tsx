/**
 * The live transcript: the newest page of events first (older pages on demand), then the
 * session's SSE stream from the last one. Tool calls pair with their results and fold.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import type { BatonEvent } from '../../../src/events/index.js';
import { reasonText } from '../../../src/events/format.js';
import { api, errorText, onStreamMessage, streamUrl } from '../api.js';
import { STATE_LABEL } from '../format.js';

/** Enough to fill a tall screen twice; older events load on demand, so opening stays fast at any length. */
const FIRST_PAGE = 80;

type Item =
  | { kind: 'event'; event: BatonEvent }
  | {
      kind: 'tool';
      start: Extract<BatonEvent, { type: 'tool.started' }>;
      end?: Extract<BatonEvent, { type: 'tool.finished' }>;
    };

export function Transcript({ session }: { session: SessionView }) {
  const [events, setEvents] = useState<BatonEvent[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const bottom = useRef<HTMLDivElement>(null);
  // Opened from a search hit (`?at=<seq>`): the page around that event, scrolled to it.
  const at = useMemo(() => openedAt(), [session.id]);
  const stick = useRef(at === undefined);

  useEffect(() => {
    let source: EventSource | undefined;
    let closed = false;
    const query =
      at === undefined ? { limit: FIRST_PAGE } : { limit: FIRST_PAGE, before: at + FIRST_PAGE / 2 };
    api.call('GET /api/sessions/:ref/transcript', { params: { ref: session.id }, query }).then(
      (page) => {
        if (closed) return;
        setEvents(page.events);
        setHasMore(page.hasMore);
        setLoaded(true);
        const last = page.events.at(-1)?.seq ?? page.lastSeq;
        const route = 'GET /api/sessions/:ref/events';
        source = new EventSource(
          streamUrl(route, { params: { ref: session.id }, query: { follow: true, after: last } }),
        );
        onStreamMessage(source, route, 'event', (event) => {
          setEvents((current) =>
            current.length > 0 && (current.at(-1)?.seq ?? 0) >= event.seq ? current : [...current, event],
          );
        });
      },
      (e: unknown) => setError(errorText(e)),
    );
    return () => {
      closed = true;
      source?.close();
    };
  }, [session.id]);

  useEffect(() => {
    if (stick.current) bottom.current?.scrollIntoView({ block: 'end' });
  }, [events]);

  const shownAt = loaded && at !== undefined;
  useEffect(() => {
    if (shownAt) document.querySelector(`[data-seq="${at}"]`)?.scrollIntoView({ block: 'center' });
  }, [shownAt, at]);

  const loadEarlier = () => {
    const first = events[0]?.seq;
    if (first === undefined) return;
    api
      .call('GET /api/sessions/:ref/transcript', {
        params: { ref: session.id },
        query: { before: first, limit: 300 },
      })
      .then(
        (page) => {
          setEvents((current) => [...page.events, ...current]);
          setHasMore(page.hasMore);
          stick.current = false;
        },
        (e: unknown) => setError(errorText(e)),
      );
  };

  const items = useMemo(() => pair(events), [events]);
  if (error !== undefined) return <div className="empty error-text">{error}</div>;
  if (!loaded) return <div className="empty">Loading the transcript…</div>;
  return (
    <div
      className="transcript"
      data-testid="transcript"
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {hasMore && (
        <button className="btn btn-sm load-earlier" onClick={loadEarlier}>
          Load earlier events
        </button>
      )}
      {items.length === 0 && <div className="muted">Nothing yet.</div>}
      {items.map((item) => {
        const seqs = item.kind === 'tool' ? [item.start.seq, item.end?.seq] : [item.event.seq];
        const hit = at !== undefined && seqs.includes(at);
        return (
          <div
            key={seqs[0]}
            data-seq={hit ? at : seqs[0]}
            className={hit ? 'search-target' : undefined}
            data-testid={hit ? 'search-target' : undefined}
          >
            {item.kind === 'tool' ? (
              <ToolCall start={item.start} end={item.end} open={hit} />
            ) : (
              <Entry event={item.event} />
            )}
          </div>
        );
      })}
      <div ref={bottom} />
    </div>
  );
}

/** The seq in the address's `?at=`, when a search hit opened the page. */
function openedAt(): number | undefined {
  if (typeof location === 'undefined') return undefined;
  const at = Number(new URLSearchParams(location.search).get('at'));
  return Number.isInteger(at) && at > 0 ? at : undefined;
}

/** Folds each tool.finished into its tool.started, so a call and its output read as one. */
function pair(events: BatonEvent[]): Item[] {
  const items: Item[] = [];
  const open = new Map<string, Extract<Item, { kind: 'tool' }>>();
  for (const [i, event] of events.entries()) {
    // Agents often say their question and then ask it; show it once, as the question.
    const next = events[i + 1];
    if (event.type === 'message.added' && next?.type === 'question.asked' && next.text === event.text)
      continue;
    if (event.type === 'tool.started') {
      const item = { kind: 'tool' as const, start: event };
      open.set(event.toolId, item);
      items.push(item);
    } else if (event.type === 'tool.finished' && open.has(event.toolId)) {
      const item = open.get(event.toolId);
      if (item) item.end = event;
      open.delete(event.toolId);
    } else if (event.type !== 'usage.reported' && event.type !== 'agent.identified') {
      items.push({ kind: 'event', event });
    }
  }
  return items;
}

function ToolCall({
  start,
  end,
  open,
}: {
  start: Extract<BatonEvent, { type: 'tool.started' }>;
  end: Extract<BatonEvent, { type: 'tool.finished' }> | undefined;
  open?: boolean;
}) {
  const status = end === undefined ? 'running' : end.ok ? 'ok' : 'failed';
  return (
    <details className={`tool tool-${status}`} data-testid="tool-call" open={open}>
      <summary>
        <span className="tool-status">
          {status === 'running' ? <span className="spinner" /> : status === 'ok' ? '✓' : '✗'}
        </span>
        <span className="tool-name">{start.tool}</span>
        <code className="tool-input">{start.input.split('\n')[0]}</code>
        {end?.exitCode !== undefined && <span className="muted">exit {end.exitCode}</span>}
      </summary>
      <div className="tool-body">
        {start.input.includes('\n') && <pre className="tool-pre">{start.input}</pre>}
        {start.files && start.files.length > 0 && (
          <div className="muted">files: {start.files.join(', ')}</div>
        )}
        {end?.output ? (
          <pre className="tool-pre output">{end.output}</pre>
        ) : (
          <div className="muted">{end ? 'no output' : 'running…'}</div>
        )}
      </div>
    </details>
  );
}

function Entry({ event }: { event: BatonEvent }) {
  switch (event.type) {
    case 'message.added':
      return (
        <div className={`msg msg-${event.role}`}>
          <div className="msg-role">{event.role === 'assistant' ? 'Agent' : 'You'}</div>
          <div className="msg-text">{event.text}</div>
        </div>
      );
    case 'thinking.added':
      return (
        <details className="thinking">
          <summary>Thinking</summary>
          <div className="msg-text">{event.text}</div>
        </details>
      );
    case 'question.asked':
      return (
        <div className="msg msg-question">
          <div className="msg-role">Question</div>
          <div className="msg-text">{event.text}</div>
        </div>
      );
    case 'question.answered':
      return (
        <div className="msg msg-user">
          <div className="msg-role">You answered</div>
          <div className="msg-text">{event.text}</div>
        </div>
      );
    case 'approval.requested':
      return (
        <div className="approval-entry">
          <span className="ask-label">Approval requested</span> <strong>{event.tool}</strong>{' '}
          <code>{event.input}</code>
          {event.reason && <span className="muted"> — {event.reason}</span>}
        </div>
      );
    case 'tool.blocked':
      return (
        <div className="approval-entry resolved-deny">
          <span className="ask-label">Blocked by the gate ({event.rule})</span> <strong>{event.tool}</strong>{' '}
          <code>{event.input}</code>
          <span className="muted">
            {' '}
            — {event.why}
            {event.suggest ? `; instead: ${event.suggest}` : ''}
          </span>
        </div>
      );
    case 'approval.resolved':
      return (
        <div className={`approval-entry resolved-${event.decision}`}>
          {event.decision === 'allow' ? '✓ Approved' : '✗ Denied'}
          {event.reason && <span className="muted"> — {event.reason}</span>}
        </div>
      );
    case 'error.raised':
      return (
        <div className="error-entry">
          <strong>{event.fatal ? 'Fatal error' : 'Error'}:</strong> {event.message}
          {event.detail && <pre className="tool-pre">{event.detail}</pre>}
        </div>
      );
    case 'state.changed':
      // Queued and starting are a blink at the top of every transcript; the header shows them live.
      if (event.to === 'queued' || event.to === 'starting') return null;
      return (
        <div className="divider">
          <span>
            {STATE_LABEL[event.to]}
            {event.reason && event.reason.kind !== 'approval' && event.reason.kind !== 'question'
              ? ` — ${reasonText(event.reason)}`
              : ''}
          </span>
        </div>
      );
    case 'turn.started':
      return null;
    case 'turn.completed':
      return event.outcome === 'success' ? null : (
        <div className="divider warn">
          <span>
            turn {event.outcome}
            {event.error ? `: ${event.error}` : ''}
          </span>
        </div>
      );
    case 'session.started':
      if (!event.resumed) return null;
      return (
        <div className="divider">
          <span>
            {event.resumed ? 'resumed' : 'started'} {event.agent}
            {event.model ? ` · ${event.model}` : ''}
          </span>
        </div>
      );
    case 'session.ended':
      return (
        <div className="divider">
          <span>
            ended ({event.reason}){event.message ? `: ${event.message}` : ''}
          </span>
        </div>
      );
    // The worktree being made ready (decision 59, "Setup runs in the session's host"): each step, its
    // output live, and the outcome.
    case 'setup.step':
      return (
        <div className="approval-entry">
          <span className="muted">setup {event.kind}</span> <code>{event.label}</code>
        </div>
      );
    case 'setup.output':
      return <pre className="tool-pre output">{event.text}</pre>;
    case 'setup.finished':
      return (
        <div className={event.ok ? 'divider' : 'divider warn'}>
          <span>
            {event.ok ? 'worktree ready' : 'setup failed'} in {(event.durationMs / 1000).toFixed(1)} s
            {event.error ? `: ${event.error}` : ''}
          </span>
        </div>
      );
    case 'work.checkpointed':
      return (
        <div className="approval-entry">
          <span className="ask-label">Checkpoint {event.checkpoint}</span> the work was kept before{' '}
          <code>{event.command}</code>
          <span className="muted">
            {' '}
            — it {event.why}; `baton restore` with this checkpoint brings it back
          </span>
        </div>
      );
    case 'tool.started':
    case 'tool.finished':
    case 'usage.reported':
    case 'limits.reported':
    case 'agent.identified':
      return null;
  }
}
