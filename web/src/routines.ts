/**
 * Routines on the page: the list (with next run times and last outcomes), fetched when a page
 * that shows it opens and again when a `routine.*` event arrives on the board's one stream.
 */
import { useEffect, useSyncExternalStore } from 'react';
import type { z } from 'zod';
import type { RoutineView } from '../../src/api/routines.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { api, errorText } from './api.js';

export type Routine = z.output<typeof RoutineView>;

interface RoutinesState {
  routines: Routine[] | undefined;
  error: string | undefined;
}

let state: RoutinesState = { routines: undefined, error: undefined };
const listeners = new Set<() => void>();
let watchers = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

function set(next: Partial<RoutinesState>): void {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

export function refreshRoutines(delayMs = 0): void {
  if (timer !== undefined) return;
  timer = setTimeout(() => {
    timer = undefined;
    api.call('GET /api/routines', { query: {} }).then(
      ({ routines }) => set({ routines, error: undefined }),
      (error: unknown) => set({ error: errorText(error) }),
    );
  }, delayMs);
}

/** Called for every workspace event the board's stream brings. */
export function trackRoutineEvent(event: WorkspaceEvent): void {
  if (watchers > 0 && event.type.startsWith('routine.')) refreshRoutines(150);
}

/** The routines, kept current while the calling component is mounted. */
export function useRoutines(): RoutinesState {
  useEffect(() => {
    watchers++;
    refreshRoutines();
    return () => {
      watchers--;
    };
  }, []);
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
    () => state,
  );
}
