/**
 * The sessions domain's face: the manager the supervisor wires (dispatch, the user's commands,
 * hosts, ingestion) and what other domains may know of a session's state. Its parts — the one
 * state machine (state.ts), dispatch.ts, commands.ts, hosts.ts, ingest.ts and the session host
 * process (host*.ts) — are reached through here.
 */
export { SessionManager } from './manager.js';
export type { ManagerEvents, ManagerOptions } from './manager.js';
export { ACTIVE_STATES } from './state.js';
export type { ResumeGuard } from './core.js';
// A session's name, checked the one way wherever one is made (dispatch, attempts, routines, restore).
export { nameFromPrompt, sessionNameProblem, validateSessionName } from './names.js';
// What a session did, read from its worktree: the API's history and another machine's view of it.
export { sessionDiff, sessionDiffStat, sessionFiles, sessionUsage } from './facts.js';
export { SessionCheckpoints } from './checkpoints.js';
