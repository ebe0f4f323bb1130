/**
 * Pull requests opened from the page, by session: pushing (the push and `gh` can take a while),
 * then what the supervisor did (a link, or where to open it by hand). Kept while the page is open,
 * so the link is still there after a visit elsewhere.
 */
import { useSyncExternalStore } from 'react';
import type { PrView } from '../../src/api/merge.js';
import { api } from './api.js';

export interface PullRequestState {
  status: 'pushing' | 'opened';
  view?: PrView;
}

type State = Readonly<Record<string, PullRequestState>>;

const EMPTY: State = {};
let state: State = EMPTY;
const listeners = new Set<() => void>();

function set(next: State): void {
  state = next;
  for (const listener of listeners) listener();
}

function without(sessionId: string): State {
  const next = { ...state };
  delete next[sessionId];
  return next;
}

/** Pushes the session's branch and opens its pull request (`POST /api/sessions/:ref/pr`). */
export async function startPullRequest(sessionId: string): Promise<PrView> {
  set({ ...state, [sessionId]: { status: 'pushing' } });
  try {
    const view = await api.call('POST /api/sessions/:ref/pr', { params: { ref: sessionId } });
    set({ ...state, [sessionId]: { status: 'opened', view } });
    return view;
  } catch (error) {
    set(without(sessionId));
    throw error;
  }
}

export function dismissPullRequest(sessionId: string): void {
  set(without(sessionId));
}

export function usePullRequests(): State {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
    () => EMPTY,
  );
}
