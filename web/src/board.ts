/**
 * The live board: one EventSource on `/api/stream` feeding a small external store that every
 * view reads with useSyncExternalStore. Files-changed counts follow lazily, since each costs
 * the supervisor git processes.
 *
 * The page arrives with a snapshot embedded (`#snapshot`, see src/server/web-page.ts), so the
 * board has data before the stream opens; the stream's own snapshot then replaces it, which
 * also covers any change made between the page's rendering and the stream's start.
 */
import { useSyncExternalStore } from 'react';
import type { ConflictBadge } from '../../src/api/conflicts.js';
import type { SessionView } from '../../src/api/index.js';
import type { ReviewQueueView } from '../../src/api/sessions.js';
import type { StreamSnapshot } from '../../src/api/web.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { api, authListeners, onStreamMessage, streamUrl } from './api.js';
import { landingReconnected, trackWorkspaceEvent } from './landing.js';
import { trackRoutineEvent } from './routines.js';
import { notifyTransition } from './notify.js';
import { watchdogEvent } from './watchdog.js';
import { tasksReconnected, trackTaskEvent } from './tasks.js';

export interface BoardState {
  sessions: ReadonlyMap<string, SessionView>;
  changes: Readonly<Record<string, number>>;
  /** Sessions ready for review and the size of their work; known once the change counts arrive. */
  reviewQueue?: ReviewQueueView;
  /** The conflict radar's badges by session id: fetched once, then again when a `radar.*` event says they changed. */
  conflicts: Readonly<Record<string, ConflictBadge>>;
  /** Whether the stream is open; the sessions may already be known from the page's snapshot. */
  status: 'connecting' | 'live' | 'reconnecting' | 'unauthorized';
  /** True once any snapshot (embedded or streamed) has arrived. */
  loaded: boolean;
}

let state: BoardState = {
  sessions: new Map(),
  changes: {},
  conflicts: {},
  status: 'connecting',
  loaded: false,
};
/** What the server rendered the page from; hydration must render exactly this. */
let serverState = state;
const listeners = new Set<() => void>();
let source: EventSource | undefined;
let changesTimer: ReturnType<typeof setTimeout> | undefined;
let conflictsTimer: ReturnType<typeof setTimeout> | undefined;

function set(next: Partial<BoardState>): void {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

authListeners.add(() => set({ status: 'unauthorized' }));

/** Pages that follow workspace events of their own (the attempts pages follow `attempt.*`). */
export const workspaceListeners = new Set<(event: WorkspaceEvent) => void>();

function connect(): void {
  const route = 'GET /api/stream';
  source = new EventSource(streamUrl(route, {}));
  onStreamMessage(source, route, 'snapshot', (snapshot) => {
    set({
      sessions: reuseUnchanged(snapshot.sessions),
      changes: { ...state.changes, ...snapshot.files },
      status: 'live',
      loaded: true,
    });
    refreshChanges(0);
    refreshConflicts(0);
    landingReconnected();
    tasksReconnected();
  });
  onStreamMessage(source, route, 'workspace', (event) => {
    if (event.type.startsWith('radar.')) refreshConflicts(250);
    trackWorkspaceEvent(event);
    trackRoutineEvent(event);
    watchdogEvent(event);
    trackTaskEvent(event);
    for (const listener of workspaceListeners) listener(event);
  });
  onStreamMessage(source, route, 'session', (session) => {
    const previous = state.sessions.get(session.id);
    const sessions = new Map(state.sessions);
    sessions.set(session.id, session);
    set({ sessions });
    notifyTransition(previous, session);
    if (previous?.lastSeq !== session.lastSeq) refreshChanges(1000);
  });
  onStreamMessage(source, route, 'removed', ({ id }) => {
    const sessions = new Map(state.sessions);
    sessions.delete(id);
    set({ sessions });
  });
  source.onerror = () => {
    // EventSource retries by itself unless the server refused outright; a 401 closes it for good.
    if (source?.readyState === EventSource.CLOSED) {
      api.call('GET /api/inbox').then(
        () => setTimeout(connect, 1000),
        () => undefined,
      );
    }
    if (state.status !== 'unauthorized') set({ status: 'reconnecting' });
  };
}

function refreshChanges(delayMs: number): void {
  if (changesTimer !== undefined) return;
  changesTimer = setTimeout(() => {
    changesTimer = undefined;
    api.call('GET /api/changes').then(
      ({ counts, reviewQueue }) => set({ changes: counts, reviewQueue }),
      () => undefined,
    );
  }, delayMs);
}

/** Badges are few and small; a burst of radar events makes one request. Unchanged badges keep their objects, so their cards skip re-rendering. */
function refreshConflicts(delayMs: number): void {
  if (conflictsTimer !== undefined) return;
  conflictsTimer = setTimeout(() => {
    conflictsTimer = undefined;
    api.call('GET /api/conflicts/badges').then(
      ({ badges }) => {
        const kept: Record<string, ConflictBadge> = {};
        for (const [id, badge] of Object.entries(badges)) {
          const known = state.conflicts[id];
          kept[id] = known !== undefined && JSON.stringify(known) === JSON.stringify(badge) ? known : badge;
        }
        set({ conflicts: kept });
      },
      () => undefined,
    );
  }, delayMs);
}

/**
 * The stream's snapshot usually repeats the embedded one; keeping the objects that did not
 * change lets memoised cards skip re-rendering right after the page loads.
 */
function reuseUnchanged(sessions: SessionView[]): Map<string, SessionView> {
  return new Map(
    sessions.map((s) => {
      const known = state.sessions.get(s.id);
      return [s.id, known !== undefined && JSON.stringify(known) === JSON.stringify(s) ? known : s];
    }),
  );
}

/**
 * How many cards the board's first render shows: about a first screen, so that it paints
 * without waiting for the rest, which follow in a deferred render. `/?all=1` asks for every
 * card at once; only a browser without JavaScript needs it, as it never gets the rest.
 */
const FIRST_SCREEN_CARDS = 24;
let showAll = false;

export function firstRenderLimit(): number {
  return showAll ? Number.POSITIVE_INFINITY : FIRST_SCREEN_CARDS;
}

/**
 * Seeds the store from the snapshot the server rendered the page with (in the page, or in the
 * server-render bundle); the server and the hydrating browser must agree on `showAll` too.
 */
export function seedBoard(snapshot: StreamSnapshot, options: { showAll?: boolean } = {}): void {
  state = {
    ...state,
    sessions: new Map(snapshot.sessions.map((s) => [s.id, s])),
    changes: snapshot.files ?? {},
    loaded: true,
  };
  serverState = state;
  showAll = options.showAll ?? false;
}

/** Reads the snapshot the supervisor embedded in the page, if it did (it does only for a logged-in browser). */
export function seedBoardFromPage(): void {
  const text = document.getElementById('snapshot')?.textContent;
  if (text)
    seedBoard(JSON.parse(text) as StreamSnapshot, {
      showAll: new URLSearchParams(location.search).has('all'),
    });
}

/** Called before the first render so the stream is on its way while React mounts. */
export function startBoard(): void {
  if (source === undefined) connect();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  startBoard();
  return () => listeners.delete(listener);
}

export function useBoard(): BoardState {
  return useSyncExternalStore(
    subscribe,
    () => state,
    () => serverState,
  );
}

/** The latest view of one session, or undefined before the snapshot (or after removal). */
export function useSession(id: string): SessionView | undefined {
  return useBoard().sessions.get(id);
}
