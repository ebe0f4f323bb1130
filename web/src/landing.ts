/**
 * Landing work from the page: every merge the page knows of, followed live from the board's one
 * stream (`merge.*` workspace events). The board only hands events over (a function call,
 * nothing fetched); the pages that show merges (a session, a group, Landing) ask for the queue
 * and the recent results when they open, and again after each merge event while they are open,
 * which also corrects a position or a result missed while the stream was reconnecting. A merge
 * is kept after its session is removed (a landed session is), so its page can still say what
 * happened. Pull requests opened from the page are in pull-requests.ts.
 */
import { useEffect, useSyncExternalStore } from 'react';
import type { MergeListView, MergeResult, MergeView } from '../../src/api/merge.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { api } from './api.js';

/**
 * Sessions whose agent is not changing the work may land (the merge domain refuses the others).
 * Listed rather than excluded, so a state added later is not offered until it is known to be safe.
 */
export const LANDABLE_STATES: readonly string[] = ['ready_for_review', 'completed', 'stopped', 'failed'];

export type MergePhase = 'queued' | 'merging' | 'checking' | 'landed' | 'conflicted' | 'failed';
export type MergeMember = MergeView['sessions'][number];

export interface MergeTrack {
  mergeId: string;
  project: string;
  base: string;
  sessions: MergeMember[];
  squash: boolean;
  phase: MergePhase;
  /** In its repository's queue; 1 is running. */
  position: number;
  /** The base's tip the merge started from (merging). */
  baseCommit: string | null;
  /** The check being run, and how many members it covers (fewer than all while bisecting). */
  command: string | null;
  checked: number | null;
  /** Once it ended: the supervisor's result, or one built from the event until that arrives. */
  result: MergeResult | null;
  /** When it was queued (or first seen), for "the latest merge of this session". */
  since: string;
}

interface LandingState {
  tracks: ReadonlyMap<string, MergeTrack>;
  /** The queue and the recent results as the supervisor last said, once a page asked. */
  list?: MergeListView;
  /** The merge a page started, by the page's key (a group's, the plan's), so it is still shown after a visit elsewhere. */
  started: Readonly<Record<string, string>>;
}

const FINAL: readonly MergePhase[] = ['landed', 'conflicted', 'failed'];
const RANK: Record<MergePhase, number> = {
  queued: 0,
  merging: 1,
  checking: 2,
  landed: 3,
  conflicted: 3,
  failed: 3,
};
const KEPT = 100;

let state: LandingState = { tracks: new Map(), started: {} };
/** What the server renders (it knows no merges), so hydration matches whatever the stream brought meanwhile. */
const serverState = state;
const listeners = new Set<() => void>();
/** Pages showing merges right now; only while there are any is the list fetched. */
let watchers = 0;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
/** Running merges missing from the last list (see fold). */
const misses = new Set<string>();

function set(next: Partial<LandingState>): void {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

export function isFinal(phase: MergePhase): boolean {
  return FINAL.includes(phase);
}

function put(tracks: Map<string, MergeTrack>, track: MergeTrack): void {
  tracks.set(track.mergeId, track);
  if (tracks.size > KEPT) {
    const oldest = [...tracks.values()]
      .filter((t) => isFinal(t.phase))
      .sort((a, b) => a.since.localeCompare(b.since))[0];
    if (oldest !== undefined) tracks.delete(oldest.mergeId);
  }
}

type MergeEvent = Extract<WorkspaceEvent, { type: `merge.${string}` }>;

/** Called by the board for every workspace event; ignores all but `merge.*`. */
export function trackWorkspaceEvent(event: WorkspaceEvent): void {
  if (!event.type.startsWith('merge.')) return;
  const e = event as MergeEvent;
  const tracks = new Map(state.tracks);
  const known = tracks.get(e.data.mergeId);
  const base: MergeTrack = known ?? {
    mergeId: e.data.mergeId,
    project: e.data.project,
    base: e.data.base,
    sessions: e.data.sessions,
    squash: e.data.squash,
    phase: 'queued',
    position: 1,
    baseCommit: null,
    command: null,
    checked: null,
    result: null,
    since: e.ts,
  };
  // Events come in the bus's order, so each one simply says where the merge is now.
  put(tracks, { ...base, sessions: e.data.sessions, ...fromEvent(e, base) });
  set({ tracks });
  if (watchers > 0) scheduleRefresh(isFinal(tracks.get(e.data.mergeId)!.phase) ? 0 : 200);
}

function fromEvent(e: MergeEvent, track: MergeTrack): Partial<MergeTrack> {
  const ended = (
    result: Omit<MergeResult, 'mergeId' | 'project' | 'base' | 'sessions' | 'squash' | 'finishedAt'>,
  ): Partial<MergeTrack> => ({
    phase: result.outcome,
    // The supervisor's own result (with its message) replaces this one when the list is fetched.
    result: track.result ?? {
      mergeId: e.data.mergeId,
      project: e.data.project,
      base: e.data.base,
      sessions: e.data.sessions,
      squash: e.data.squash,
      finishedAt: e.ts,
      ...result,
    },
  });
  const names = e.data.sessions.map((s) => s.name).join(', ');
  const none = {
    outcome: 'none' as const,
    command: null,
    durationMs: null,
    exitCode: null,
    outputTail: null,
  };
  switch (e.type) {
    case 'merge.queued':
      return { phase: 'queued', position: e.data.position };
    case 'merge.started':
      return { phase: 'merging', position: 1, baseCommit: e.data.baseCommit };
    case 'merge.checking':
      return { phase: 'checking', position: 1, command: e.data.command, checked: e.data.members };
    case 'merge.landed':
      return ended({
        outcome: 'landed',
        reason: 'landed',
        message: `Landed ${names} on ${e.data.base} at ${e.data.commit.slice(0, 12)}.`,
        commit: e.data.commit,
        previous: e.data.previous,
        check: e.data.check,
        culprit: null,
        files: [],
        replied: false,
        checkoutUpdated: e.data.checkoutUpdated,
        durationMs: e.data.durationMs,
      });
    case 'merge.conflicted':
      return ended({
        outcome: 'conflicted',
        reason: 'conflict',
        message: `${e.data.culprit.name} conflicts with ${e.data.base} in ${e.data.files.join(', ') || 'its changes'}; nothing was landed.`,
        commit: null,
        previous: null,
        check: none,
        culprit: e.data.culprit,
        files: e.data.files,
        replied: e.data.replied,
        checkoutUpdated: null,
        durationMs: e.data.durationMs,
      });
    case 'merge.failed':
      return ended({
        outcome: 'failed',
        reason: e.data.reason,
        message: e.data.message,
        commit: null,
        previous: null,
        check: e.data.check,
        culprit: e.data.culprit,
        files: [],
        replied: e.data.replied,
        checkoutUpdated: null,
        durationMs: e.data.durationMs,
      });
  }
}

/**
 * Folds the supervisor's queue and results in: positions move as merges ahead finish; a phase
 * never goes back. A running merge the supervisor no longer knows (it was restarted, and the
 * queue is in memory) is dropped after two lists without it: one list may simply predate it.
 */
function fold(list: MergeListView): void {
  const tracks = new Map(state.tracks);
  const listed = new Set([...list.queue.map((m) => m.mergeId), ...list.recent.map((r) => r.mergeId)]);
  for (const track of state.tracks.values()) {
    if (isFinal(track.phase) || listed.has(track.mergeId)) continue;
    if (misses.has(track.mergeId)) {
      tracks.delete(track.mergeId);
      misses.delete(track.mergeId);
    } else misses.add(track.mergeId);
  }
  for (const id of listed) misses.delete(id);
  for (const view of list.queue) {
    const known = tracks.get(view.mergeId);
    if (known !== undefined && isFinal(known.phase)) continue;
    const phase = known === undefined || RANK[view.state] > RANK[known.phase] ? view.state : known.phase;
    const track: MergeTrack = known ?? {
      ...view,
      phase,
      baseCommit: null,
      command: null,
      checked: null,
      result: null,
      since: view.queuedAt,
    };
    put(tracks, { ...track, phase, position: view.position });
  }
  for (const result of list.recent) {
    const known = tracks.get(result.mergeId);
    if (
      known?.result !== undefined &&
      known.result !== null &&
      known.result.message === result.message &&
      known.result.finishedAt === result.finishedAt
    )
      continue;
    const since = known?.since ?? new Date(Date.parse(result.finishedAt) - result.durationMs).toISOString();
    put(tracks, {
      ...(known ?? { ...result, position: 1, baseCommit: null, command: null, checked: null, since }),
      phase: result.outcome,
      result,
    });
  }
  set({ tracks, list });
}

export function refreshMerges(): Promise<MergeListView | undefined> {
  return api.call('GET /api/merges').then(
    (list) => (fold(list), list),
    () => undefined,
  );
}

function scheduleRefresh(delayMs: number): void {
  if (refreshTimer !== undefined) {
    if (delayMs > 0) return;
    clearTimeout(refreshTimer);
  }
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    void refreshMerges();
  }, delayMs);
}

/** After the stream reconnects: events may have been missed, so ask again if a page is showing merges. */
export function landingReconnected(): void {
  if (watchers > 0) scheduleRefresh(0);
}

/** Queues sessions to land (as one group when several); the track follows from the stream. `key`: remembered as this page's merge. */
export async function startMerge(
  sessions: string[],
  options: { squash: boolean; planned: boolean; key?: string },
): Promise<MergeTrack> {
  const { merge } = await api.call('POST /api/merges', {
    body: { sessions, squash: options.squash, planned: options.planned },
  });
  if (options.key !== undefined) set({ started: { ...state.started, [options.key]: merge.mergeId } });
  const known = state.tracks.get(merge.mergeId);
  if (known === undefined) {
    // The stream has not delivered merge.queued yet (it usually has).
    const tracks = new Map(state.tracks);
    put(tracks, {
      ...merge,
      phase: merge.state,
      baseCommit: null,
      command: null,
      checked: null,
      result: null,
      since: merge.queuedAt,
    });
    set({ tracks });
  }
  scheduleRefresh(0);
  return state.tracks.get(merge.mergeId)!;
}

/** Forgets the merge a page started (its result was dismissed). */
export function forgetStarted(key: string): void {
  const started = { ...state.started };
  delete started[key];
  set({ started });
}

/** The store as it is now, outside React (tests). */
export function landingSnapshot(): LandingState {
  return state;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useLanding(): LandingState {
  return useSyncExternalStore(
    subscribe,
    () => state,
    () => serverState,
  );
}

/** For a page that shows merges: the list is fetched when it opens and kept current while it is open. */
export function useLandingFeed(): void {
  useEffect(() => {
    watchers++;
    scheduleRefresh(0);
    return () => {
      watchers--;
    };
  }, []);
}

/** The most recent merge that includes this session. */
export function latestMergeOf(
  tracks: ReadonlyMap<string, MergeTrack>,
  sessionId: string,
): MergeTrack | undefined {
  let latest: MergeTrack | undefined;
  for (const track of tracks.values()) {
    if (
      track.sessions.some((s) => s.sessionId === sessionId) &&
      (latest === undefined || track.since > latest.since)
    )
      latest = track;
  }
  return latest;
}
