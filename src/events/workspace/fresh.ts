/** Keep-fresh (src/fresh): idle sessions' branches rebased onto their moving base (decision 307). */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

const onto = { baseRef: z.string(), onto: z.string() };

/** The branch was rebased cleanly onto the base's new tip; `checkpoint` holds the work as it was before. */
export const FreshRebased = defineWorkspaceEvent(
  'fresh.rebased',
  z.object({
    ...sessionRef,
    ...onto,
    from: z.string(),
    head: z.string(),
    commits: z.number().int(),
    checkpoint: z.string(),
  }),
);

/**
 * The rebase would conflict: it was aborted and the worktree put back, then handed to the
 * session's agent as a turn (`agent`) or left for the user (`user`).
 */
export const FreshConflicted = defineWorkspaceEvent(
  'fresh.conflicted',
  z.object({
    ...sessionRef,
    ...onto,
    files: z.array(z.string()),
    handedTo: z.enum(['agent', 'user']),
    checkpoint: z.string(),
  }),
);

/**
 * The branch is behind and was not rebased: its agent is at work (`working`: done once its turn
 * ends), its worktree is mid-rebase or mid-merge (`mid_operation`), or the rebase could not run
 * (`failed`, with git's words).
 */
export const FreshDeferred = defineWorkspaceEvent(
  'fresh.deferred',
  z.object({
    ...sessionRef,
    ...onto,
    why: z.enum(['working', 'merging', 'mid_operation', 'failed']),
    message: z.string(),
  }),
);
