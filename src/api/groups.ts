/** Kept free of zod so the CLI can render without loading it (it costs ~80 ms of start-up). */
import type { SessionState } from '../events/index.js';

/** The order in which `baton ls` and the board group sessions. */
export const STATE_GROUPS: readonly { state: SessionState; title: string }[] = [
  { state: 'needs_input', title: 'Needs input' },
  { state: 'working', title: 'Working' },
  { state: 'preparing', title: 'Preparing' },
  { state: 'starting', title: 'Starting' },
  { state: 'ready_for_review', title: 'Ready for review' },
  { state: 'queued', title: 'Queued' },
  { state: 'completed', title: 'Completed' },
  { state: 'failed', title: 'Failed' },
  { state: 'stopped', title: 'Stopped' },
];

/**
 * How the page and the terminal board group sessions: by what they need from you. Starting and
 * preparing fold into Working; pinned sessions come first whatever their state.
 */
export const BOARD_GROUPS: readonly { key: string; title: string; states: readonly SessionState[] }[] = [
  { key: 'needs_input', title: 'Needs input', states: ['needs_input'] },
  { key: 'working', title: 'Working', states: ['working', 'starting', 'preparing'] },
  { key: 'ready_for_review', title: 'Ready for review', states: ['ready_for_review'] },
  { key: 'queued', title: 'Queued', states: ['queued'] },
  { key: 'completed', title: 'Completed', states: ['completed'] },
  { key: 'failed', title: 'Failed', states: ['failed'] },
  { key: 'stopped', title: 'Stopped', states: ['stopped'] },
];

/** The fields grouping reads, so the page and the terminal can pass their own session objects. */
interface Groupable {
  state: SessionState;
  pinned: boolean;
  lastEventAt: string | null;
  createdAt: string;
  queuePosition: number | null;
}

/** Non-empty groups in board order, most recently active first (queued ones in queue order). */
export function groupSessions<S extends Groupable>(
  sessions: Iterable<S>,
): { key: string; title: string; sessions: S[] }[] {
  const byRecent = [...sessions].sort((a, b) =>
    (b.lastEventAt ?? b.createdAt).localeCompare(a.lastEventAt ?? a.createdAt),
  );
  const groups = [{ key: 'pinned', title: 'Pinned', sessions: byRecent.filter((s) => s.pinned) }];
  for (const group of BOARD_GROUPS) {
    const inGroup = byRecent.filter((s) => !s.pinned && group.states.includes(s.state));
    if (group.key === 'queued') inGroup.sort((a, b) => (a.queuePosition ?? 0) - (b.queuePosition ?? 0));
    groups.push({ key: group.key, title: group.title, sessions: inGroup });
  }
  return groups.filter((g) => g.sessions.length > 0);
}
