/**
 * Attempts (decision 105, "Best-of and fan-out are attempt groups"): best-of-N — one prompt run by N
 * sessions of any mix of agents, compared side by side (the repository's check, diff size, files, cost,
 * time, conflicts with other live work), one picked to land through the merge queue and the others
 * archived with their work kept — and fan-out — a list of items split into batches, one session per
 * batch, a failed batch retried once, the results gathered in one report. Shapes are in
 * `api/attempts.ts`, events in `events/workspace/attempts.ts` (`attempt.*`).
 */
export { AttemptService, type AttemptServiceOptions } from './service.js';
export { AttemptGroupNotFoundError, AmbiguousGroupError } from './errors.js';
export { attemptAgents, batches, batchPrompt, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_BATCHES } from './plan.js';
export type { AttemptSessions } from './sessions.js';
export { parseItems } from '../shared/items.js';
