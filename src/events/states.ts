/**
 * The session states as plain values, without zod, so the web UI can use them without pulling
 * the event schemas into the board's bundle. `index.ts` builds the schema from these.
 */
export const SESSION_STATES = [
  'queued',
  'preparing',
  'starting',
  'working',
  'needs_input',
  'ready_for_review',
  'completed',
  'failed',
  'stopped',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** States from which a session may be started again (`respawn`, or a reply that resumes it). */
export const RESPAWNABLE_STATES: readonly SessionState[] = ['failed', 'stopped', 'ready_for_review'];
