/** The shell: sidebar navigation, the filter, the connection state, and the current page. */
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useBoard } from './board.js';
import { Board } from './components/Board.js';
import { Inbox } from './components/Inbox.js';
import { RoutineFindings } from './components/RoutineFindings.js';
import { SessionPage } from './components/SessionPage.js';
import type { Filter } from './filter.js';
import { installKeyboard, useKeys } from './keys.js';
import { notificationsWanted, setNotifications } from './notify.js';
import { navigate, useRoute } from './router.js';
import { useToasts } from './toast.js';

// The form pulls in zod; the board should not wait for it.
const DispatchForm = lazy(() =>
  import('./components/DispatchForm.js').then((m) => ({ default: m.DispatchForm })),
);
// The combined review renders diffs with diff2html, the biggest dependency: loaded when opened.
const ReviewList = lazy(() => import('./components/ReviewList.js').then((m) => ({ default: m.ReviewList })));
const ReviewGroup = lazy(() =>
  import('./components/ReviewGroup.js').then((m) => ({ default: m.ReviewGroup })),
);
// The merge queue, the plan and recent results: fetched and loaded only when opened.
const Search = lazy(() => import('./components/Search.js').then((m) => ({ default: m.Search })));
const Landing = lazy(() => import('./components/Landing.js').then((m) => ({ default: m.Landing })));
const Routines = lazy(() => import('./components/Routines.js').then((m) => ({ default: m.Routines })));
const Cost = lazy(() => import('./components/Cost.js').then((m) => ({ default: m.Cost })));
// The kanban: fetched and loaded only when opened, then kept live by the board's stream.
const Tasks = lazy(() => import('./components/Tasks.js').then((m) => ({ default: m.Tasks })));
// Best-of comparisons and fan-out reports: loaded when opened.
const AttemptsList = lazy(() =>
  import('./components/Attempts.js').then((m) => ({ default: m.AttemptsList })),
);
const AttemptGroup = lazy(() =>
  import('./components/Attempts.js').then((m) => ({ default: m.AttemptGroup })),
);
const FanoutReport = lazy(() =>
  import('./components/Attempts.js').then((m) => ({ default: m.FanoutReport })),
);

export function App() {
  const route = useRoute();
  const board = useBoard();
  const [filter, setFilter] = useState<Filter>({ text: '', project: '' });
  // Read after mounting: the server (and so hydration) cannot know this browser's choice.
  const [notify, setNotify] = useState(false);
  useEffect(() => setNotify(notificationsWanted()), []);
  useEffect(installKeyboard, []);
  useKeys({
    '/': () => document.getElementById('filter')?.focus(),
    g: () => navigate('/'),
    i: () => navigate('/inbox'),
    n: () => navigate('/dispatch'),
    v: () => navigate('/review'),
    l: () => navigate('/landing'),
    o: () => navigate('/routines'),
    c: () => navigate('/cost'),
    s: () => navigate('/search'),
    t: () => navigate('/tasks'),
    b: () => navigate('/attempts'),
  });

  const sessions = [...board.sessions.values()];
  const projects = useMemo(() => [...new Set(sessions.map((s) => s.project))].sort(), [sessions]);
  const inboxCount = sessions.filter((s) => s.state === 'needs_input').length;

  if (board.status === 'unauthorized') return <SignedOut />;
  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="sidebar-inner">
          <div className="brand">
            <span className="logo" aria-hidden>
              ◆
            </span>
            Baton
          </div>
          <nav>
            <NavLink to="/" active={route.page === 'board'} label="Board" hint="g" count={sessions.length} />
            <NavLink
              to="/inbox"
              active={route.page === 'inbox'}
              label="Inbox"
              hint="i"
              count={inboxCount}
              urgent={inboxCount > 0}
            />
            <NavLink to="/tasks" active={route.page === 'tasks'} label="Tasks" hint="t" />
            <NavLink
              to="/review"
              active={route.page === 'review' || route.page === 'review-group'}
              label="Review"
              hint="v"
            />
            <NavLink to="/landing" active={route.page === 'landing'} label="Landing" hint="l" />
            <NavLink to="/routines" active={route.page === 'routines'} label="Routines" hint="o" />
            <NavLink to="/cost" active={route.page === 'cost'} label="Cost" hint="c" />
            <NavLink to="/search" active={route.page === 'search'} label="Search" hint="s" />
            <NavLink
              to="/attempts"
              active={route.page === 'attempts' || route.page === 'attempt' || route.page === 'fanout'}
              label="Attempts"
              hint="b"
            />
            <NavLink to="/dispatch" active={route.page === 'dispatch'} label="Dispatch" hint="n" />
          </nav>
          <div className="sidebar-foot">
            <label className="toggle">
              <input
                type="checkbox"
                checked={notify}
                onChange={(e) => {
                  setNotifications(e.target.checked).then(setNotify, () => setNotify(false));
                }}
              />
              Notify me
            </label>
            <div className={`conn conn-${board.status}`} data-testid="connection">
              <span className="dot" />{' '}
              {board.status === 'live'
                ? 'Live'
                : board.status === 'connecting'
                  ? 'Connecting…'
                  : 'Reconnecting…'}
            </div>
            {/* Without JavaScript the page is a snapshot: say so rather than "Connecting…" forever. */}
            <noscript>
              <style>{'.conn { display: none; }'}</style>
              <div className="conn-static">A snapshot (JavaScript is off): reload for changes</div>
            </noscript>
            <div className="keys-help">
              <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>⏎</kbd> open · <kbd>r</kbd> reply · <kbd>a</kbd>/
              <kbd>d</kbd> approve/deny · <kbd>/</kbd> filter
            </div>
          </div>
        </div>
      </aside>
      <main className="main">
        {(route.page === 'board' || route.page === 'inbox') && (
          <div className="toolbar">
            <input
              id="filter"
              className="filter"
              placeholder="Filter sessions…  ( / )"
              value={filter.text}
              onChange={(e) => setFilter({ ...filter, text: e.target.value })}
            />
            <select
              className="project-select"
              value={filter.project}
              onChange={(e) => setFilter({ ...filter, project: e.target.value })}
              aria-label="Project"
            >
              <option value="">All projects</option>
              {projects.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
        )}
        {route.page === 'board' && <Board filter={filter} />}
        {route.page === 'inbox' && <RoutineFindings />}
        {route.page === 'inbox' && <Inbox filter={filter} />}
        {route.page === 'dispatch' && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            <DispatchForm />
          </Suspense>
        )}
        {route.page === 'session' && <SessionPage id={route.id} />}
        {route.page === 'search' && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            <Search />
          </Suspense>
        )}
        {route.page === 'tasks' && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            <Tasks />
          </Suspense>
        )}
        {route.page === 'landing' && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            <Landing />
          </Suspense>
        )}
        {route.page === 'routines' && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            <Routines />
          </Suspense>
        )}
        {route.page === 'cost' && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            <Cost />
          </Suspense>
        )}
        {(route.page === 'attempts' || route.page === 'attempt' || route.page === 'fanout') && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            {route.page === 'attempts' ? (
              <AttemptsList />
            ) : route.page === 'attempt' ? (
              <AttemptGroup id={route.id} />
            ) : (
              <FanoutReport id={route.id} />
            )}
          </Suspense>
        )}
        {(route.page === 'review' || route.page === 'review-group') && (
          <Suspense fallback={<div className="empty">Loading…</div>}>
            {route.page === 'review' ? (
              <ReviewList />
            ) : (
              <ReviewGroup project={route.project} group={route.group} />
            )}
          </Suspense>
        )}
      </main>
      <Toasts />
    </div>
  );
}

function NavLink(props: {
  to: string;
  active: boolean;
  label: string;
  hint: string;
  count?: number;
  urgent?: boolean;
}) {
  return (
    <a
      href={props.to}
      className={`nav-link${props.active ? ' active' : ''}`}
      onClick={(e) => {
        e.preventDefault();
        navigate(props.to);
      }}
    >
      <span>{props.label}</span>
      {props.count !== undefined && props.count > 0 && (
        <span className={`badge${props.urgent ? ' urgent' : ''}`}>{props.count}</span>
      )}
      <kbd className="nav-hint">{props.hint}</kbd>
    </a>
  );
}

function Toasts() {
  const toasts = useToasts();
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`}>
          {t.text}
        </div>
      ))}
    </div>
  );
}

function SignedOut() {
  return (
    <div className="signed-out">
      <div className="signed-out-card">
        <div className="brand big">
          <span className="logo">◆</span> Baton
        </div>
        <h1>Sign in from your terminal</h1>
        <p>
          Run <code>baton ui</code> — it opens a one-time login link for this browser. The dashboard never
          sees your API token.
        </p>
      </div>
    </div>
  );
}
