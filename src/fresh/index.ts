/**
 * Keep-fresh: idle sessions' branches rebased onto their moving base, conflicts aborted and
 * handed to the agent or the user, working agents never touched (decision 307).
 */
export { isResting, KeepFresh, type FreshOptions, type FreshSessions } from './service.js';
