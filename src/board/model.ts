/**
 * What the terminal board knows, as plain data changed by pure functions: the sessions (from
 * the stream's snapshot and `session`/`removed` messages, the same views `baton ls --json` and
 * the page show), the latest workspace events of every domain, and the connection's status.
 * Rendering and I/O live elsewhere; this is what the unit tests pin down.
 */
import type { ConflictBadge } from '../api/conflicts.js';
import { groupSessions } from '../api/groups.js';
import type { SessionView } from '../api/index.js';
import type { RelayedWorkspaceEvent } from '../events/workspace-relayed.js';
import type { WorkspaceEvent } from '../events/workspace.js';

/** A line of the board's feed: this machine's workspace event, or another machine's (with `machine`). */
export type FeedEvent = WorkspaceEvent | RelayedWorkspaceEvent;

/** How many workspace events the board keeps: more than any screen shows. */
export const KEPT_WORKSPACE_EVENTS = 50;

export type ConnectionStatus =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'reconnecting'; why: string }
  | { kind: 'stopped'; why: string };

export interface BoardData {
  sessions: ReadonlyMap<string, SessionView>;
  /** Newest last, at most KEPT_WORKSPACE_EVENTS. */
  events: readonly FeedEvent[];
  /** The last workspace event seen: a reconnect resumes after it, so nothing is lost or repeated. */
  lastSeq: number;
  status: ConnectionStatus;
  loaded: boolean;
  /** The conflict radar's badges by session id, as the page shows them. */
  conflicts: Readonly<Record<string, ConflictBadge>>;
}

export const emptyBoard: BoardData = {
  sessions: new Map(),
  events: [],
  lastSeq: 0,
  status: { kind: 'connecting' },
  loaded: false,
  conflicts: {},
};

/** One message of `GET /api/stream`, as the feed hands it over. */
export type StreamUpdate =
  | { kind: 'snapshot'; sessions: SessionView[] }
  | { kind: 'session'; session: SessionView }
  | { kind: 'removed'; id: string }
  | { kind: 'workspace'; event: FeedEvent }
  | { kind: 'status'; status: ConnectionStatus }
  | { kind: 'position'; lastSeq: number }
  | { kind: 'conflicts'; badges: Record<string, ConflictBadge> };

export function applyUpdate(board: BoardData, update: StreamUpdate): BoardData {
  switch (update.kind) {
    case 'snapshot':
      return {
        ...board,
        sessions: new Map(update.sessions.map((s) => [s.id, s])),
        loaded: true,
        status: { kind: 'live' },
      };
    case 'session': {
      const sessions = new Map(board.sessions);
      sessions.set(update.session.id, update.session);
      return { ...board, sessions };
    }
    case 'removed': {
      if (!board.sessions.has(update.id)) return board;
      const sessions = new Map(board.sessions);
      sessions.delete(update.id);
      return { ...board, sessions };
    }
    case 'workspace':
      // A replay after a reconnect starts after lastSeq; this guard keeps a repeat out all the same.
      if (update.event.seq <= board.lastSeq) return board;
      return {
        ...board,
        lastSeq: update.event.seq,
        events: [...board.events, update.event].slice(-KEPT_WORKSPACE_EVENTS),
      };
    case 'status':
      return { ...board, status: update.status };
    case 'position':
      return update.lastSeq > board.lastSeq ? { ...board, lastSeq: update.lastSeq } : board;
    case 'conflicts':
      return { ...board, conflicts: update.badges };
  }
}

/** Which sessions the board shows: one repository's (its root) or every one. */
export interface Scope {
  projectRoot?: string | undefined;
  filter: string;
}

/** A filter matches name, prompt, agent, state (as `needs input` or `needs_input`), project or branch. */
export function matchesFilter(session: SessionView, filter: string): boolean {
  const text = filter.trim().toLowerCase();
  if (text === '') return true;
  const fields = [
    session.name,
    session.prompt,
    session.agent,
    session.state,
    session.state.replace(/_/g, ' '),
    session.project,
    session.branch,
    session.activity ?? '',
  ];
  return text.split(/\s+/).every((word) => fields.some((field) => field.toLowerCase().includes(word)));
}

/**
 * The feed's events for the scope: in one repository's view, that repository's events and the
 * workspace's own (those naming no project); every event in the view of every repository. An
 * event names its project by name, so the names are those of the scope's sessions.
 */
export function feedInScope(
  events: readonly FeedEvent[],
  sessions: Iterable<SessionView>,
  projectRoot: string | undefined,
): readonly FeedEvent[] {
  if (projectRoot === undefined) return events;
  const names = new Set<string>();
  for (const s of sessions) if (s.projectRoot === projectRoot) names.add(s.project);
  return events.filter((event) => {
    const project = (event.data as { project?: unknown }).project;
    return typeof project !== 'string' || names.has(project);
  });
}

export interface Row {
  kind: 'group' | 'session';
  /** A group's title with its count, or the session shown. */
  title?: string;
  session?: SessionView;
}

/** The board's lines in order: each group's title, then its sessions. */
export function boardRows(sessions: Iterable<SessionView>, scope: Scope): Row[] {
  const shown = [...sessions].filter(
    (s) =>
      (scope.projectRoot === undefined || s.projectRoot === scope.projectRoot) &&
      matchesFilter(s, scope.filter),
  );
  const rows: Row[] = [];
  for (const group of groupSessions(shown)) {
    rows.push({ kind: 'group', title: `${group.title} (${group.sessions.length})` });
    for (const session of group.sessions) rows.push({ kind: 'session', session });
  }
  return rows;
}

/** The session ids in the order the cursor visits them. */
export function cursorOrder(rows: readonly Row[]): string[] {
  return rows.flatMap((row) => (row.session === undefined ? [] : [row.session.id]));
}

/** Moves the cursor by `delta` sessions, staying on the list; a cursor whose session left starts at the top. */
export function moveCursor(
  order: readonly string[],
  current: string | undefined,
  delta: number,
): string | undefined {
  if (order.length === 0) return undefined;
  const at = current === undefined ? -1 : order.indexOf(current);
  if (at === -1) return order[0];
  return order[Math.min(order.length - 1, Math.max(0, at + delta))];
}

/** The first row of the window of `height` rows that keeps row `index` in view, moving as little as possible from `top`. */
export function scrollTop(top: number, index: number, height: number, total: number): number {
  if (height <= 0) return 0;
  let next = top;
  if (index < next) next = index;
  if (index >= next + height) next = index - height + 1;
  return Math.max(0, Math.min(next, Math.max(0, total - height)));
}
