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
