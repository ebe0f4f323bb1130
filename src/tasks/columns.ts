/**
 * Which column a task's linked sessions put it in (decision 72). The card's column is stored;
 * a person may move it anywhere, and it stays there until one of its sessions changes state
 * (or its work lands), which puts it where that state belongs.
 */
import type { SessionState } from '../events/index.js';
import type { TaskColumn } from '../events/task-card.js';

const BY_STATE: Record<SessionState, TaskColumn> = {
  queued: 'running',
  preparing: 'running',
  starting: 'running',
  working: 'running',
  needs_input: 'needs_input',
  ready_for_review: 'review',
  completed: 'review',
  // Nothing works on it any more; it can be started again.
  failed: 'ready',
  stopped: 'ready',
};

/** Most urgent first: one session asking for input makes the whole task need input. */
const PRIORITY: readonly TaskColumn[] = ['needs_input', 'running', 'review', 'ready'];

/** The column the sessions' states say, or undefined when the task has none (its column is the person's). */
export function columnFromSessions(states: readonly SessionState[]): TaskColumn | undefined {
  const columns = new Set(states.map((state) => BY_STATE[state]));
  return PRIORITY.find((column) => columns.has(column));
}
