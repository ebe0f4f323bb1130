/** The board: sessions grouped by what they need from you, with j/k/Enter/a/d/r on the cards. */
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import type { ReviewQueueView } from '../../../src/api/sessions.js';
import { groupSessions } from '../../../src/api/groups.js';
import { firstRenderLimit, useBoard, type BoardState } from '../board.js';
import { matches, type Filter } from '../filter.js';
import { pendingFocus, useKeys } from '../keys.js';
import { navigate } from '../router.js';
import { Card, decide } from './Card.js';

export function Board({ filter }: { filter: Filter }) {
  const board = useBoard();
  const groups = useMemo(
    () => groupSessions([...board.sessions.values()].filter((s) => matches(filter, s))),
    [board.sessions, filter],
  );
  const flat = groups.flatMap((g) => g.sessions);
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(timer);
  }, []);
  const index = Math.max(
    0,
    flat.findIndex((s) => s.id === selectedId),
  );
  const selected = flat[index];

  const move = (delta: number) => {
    const next = flat[Math.min(flat.length - 1, Math.max(0, index + delta))];
    if (next === undefined) return;
    setSelectedId(next.id);
    document.querySelector(`[data-session-id="${next.id}"]`)?.scrollIntoView({ block: 'nearest' });
  };
  useKeys({
    j: () => move(1),
    k: () => move(-1),
    ArrowDown: () => move(1),
    ArrowUp: () => move(-1),
    Enter: () => selected && navigate(`/s/${selected.id}`),
    r: () => {
      if (!selected) return;
      pendingFocus.reply = true;
      navigate(`/s/${selected.id}`);
    },
    a: () => selected && decide(selected, 'allow'),
    d: () => selected && decide(selected, 'deny'),
  });

  if (!board.loaded) return <div className="empty">Loading sessions…</div>;
  if (board.sessions.size === 0) {
    return (
      <div className="empty">
        <h2>No sessions yet</h2>
        <p>
          Start one from{' '}
          <a href="/dispatch" onClick={(e) => (e.preventDefault(), navigate('/dispatch'))}>
            Dispatch
          </a>{' '}
          or with <code>baton dispatch "…"</code> in a repository.
        </p>
      </div>
    );
  }
  return (
    <Groups
      groups={groups}
      changes={board.changes}
      reviewQueue={board.reviewQueue}
      conflicts={board.conflicts}
      selectedId={selected?.id}
      now={now}
      onSelect={setSelectedId}
    />
  );
}

function Groups(props: {
  groups: { key: string; title: string; sessions: SessionView[] }[];
  changes: Readonly<Record<string, number>>;
  reviewQueue: ReviewQueueView | undefined;
  conflicts: BoardState['conflicts'];
  selectedId: string | undefined;
  now: number;
  onSelect: (id: string) => void;
}) {
  // The first render (on the server, in hydration, or in the browser) shows a first screen of
  // cards; the rest follow in a deferred render, after that first screen is painted.
  const limit = useDeferredValue(Number.POSITIVE_INFINITY, firstRenderLimit());
  let budget = limit;
  const groups = props.groups.map((g) => {
    const sessions = g.sessions.slice(0, Math.max(0, budget));
    budget -= sessions.length;
    return { ...g, total: g.sessions.length, sessions };
  });
  const total = props.groups.reduce((sum, g) => sum + g.sessions.length, 0);
  const shown = Math.min(limit, total);
  return (
    <div className="board" data-testid="board">
      {groups
        .filter((g) => g.sessions.length > 0)
        .map((group) => (
          <section key={group.key} className={`group group-${group.key}`} data-group={group.key}>
            <h2 className="group-title">
              <span className={`group-dot dot-${group.key}`} />
              {group.title}
              <span className="group-count">{group.total}</span>
              {group.key === 'ready_for_review' && props.reviewQueue !== undefined && (
                <ReviewQueueSize queue={props.reviewQueue} />
              )}
            </h2>
            <div className="cards">
              {group.sessions.map((s) => (
                <Card
                  key={s.id}
                  session={s}
                  files={props.changes[s.id]}
                  conflict={props.conflicts[s.id]}
                  selected={s.id === props.selectedId}
                  now={props.now}
                  onSelect={props.onSelect}
                />
              ))}
            </div>
          </section>
        ))}
      {shown < total && (
        // Only a browser without JavaScript keeps this: with it, the rest of the cards replace it at once.
        <noscript>
          <p className="more">
            Showing the first {shown} of {total} sessions. <a href="/?all=1">Show all</a>
          </p>
        </noscript>
      )}
      {props.groups.length === 0 && <div className="empty">No session matches the filter.</div>}
    </div>
  );
}

/** The review queue's size next to its title: review, not agent count, is what limits parallel agents. */
function ReviewQueueSize({ queue }: { queue: ReviewQueueView }) {
  if (queue.sessions === queue.measuring) return null;
  return (
    <span
      className="group-meta"
      data-testid="review-queue"
      title="Files and lines waiting for review, across every session ready for review"
    >
      {queue.files} {queue.files === 1 ? 'file' : 'files'} · <span className="added">+{queue.additions}</span>{' '}
      <span className="deleted">−{queue.deletions}</span>
    </span>
  );
}
