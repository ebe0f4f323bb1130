/**
 * The board's modes and how its screen is divided: the panel's height for each mode, the empty
 * list's message, and the clock the rows' ages follow.
 */
import { useEffect, useState } from 'react';
import type * as act from './actions.js';
import type { Line } from './line-edit.js';
import type { BoardData } from './model.js';

/** What the board shows under the list, and the form being typed in, if any. */
export type Mode =
  | { kind: 'list' }
  | { kind: 'peek' }
  | { kind: 'answer'; answer: 'reply' | 'allow' | 'deny'; line: Line }
  | { kind: 'dispatch'; form: act.DispatchForm; field: number; cursor: number; error: string }
  | { kind: 'filter'; cursor: number }
  | { kind: 'remove' }
  | { kind: 'help' }
  | { kind: 'attach'; id: string };

/** Ages are shown to the second only below a minute: redrawing them every few seconds is enough. */
export const AGE_TICK_MS = 5_000;

/** The time, moved on every `tickMs`: the rows' ages follow without every frame asking the clock. */
export function useClock(tickMs: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    timer.unref();
    return () => clearInterval(timer);
  }, [tickMs]);
  return now;
}

/** Lines under the list: the workspace feed grows on a tall terminal; forms take what they need. */
export function panelHeight(mode: Mode, rows: number): number {
  switch (mode.kind) {
    case 'list':
    case 'attach':
      return rows >= 40 ? 8 : 4;
    case 'peek':
    case 'answer':
      return rows >= 40 ? 14 : 10;
    case 'dispatch':
      return 6;
    case 'filter':
      return 2;
    case 'remove':
      return 5;
    case 'help':
      return 11;
  }
}

export function emptyText(board: BoardData, filter: string, onlyHere: boolean): string {
  if (!board.loaded) return 'Connecting to the supervisor…';
  if (filter !== '') return `No session matches "${filter}" (esc clears the filter).`;
  if (onlyHere && board.sessions.size > 0)
    return 'No session in this repository yet; tab shows every repository, n dispatches one here.';
  return 'No sessions yet. n dispatches one (or: baton dispatch "what to do").';
}

export function basename(path: string): string {
  return path.split('/').filter(Boolean).at(-1) ?? path;
}
