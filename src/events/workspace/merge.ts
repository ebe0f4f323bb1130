/** The merge queue and pull requests (src/merge). */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

const mergeMember = z.object({ sessionId: z.string(), name: z.string() });
const mergeRef = {
  mergeId: z.string(),
  project: z.string(),
  base: z.string(),
  sessions: z.array(mergeMember),
  squash: z.boolean(),
};
/** What the check did: `none` when the repository configures no check (said plainly, not hidden). */
export const MergeCheckOutcome = z.object({
  outcome: z.enum(['none', 'passed', 'failed', 'timed_out']),
  command: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  exitCode: z.number().int().nullable(),
  outputTail: z.string().nullable(),
  /**
   * Set when the check did not run again because Baton had already run it on exactly this tree at
   * a session's turn end (decision 291): whose run it was.
   */
  reused: z
    .object({
      sessionId: z.string(),
      name: z.string(),
      turn: z.number().int(),
      tree: z.string(),
      at: z.string(),
    })
    .optional(),
});

export const MergeQueued = defineWorkspaceEvent(
  'merge.queued',
  z.object({ ...mergeRef, position: z.number().int().positive() }),
);
export const MergeStarted = defineWorkspaceEvent(
  'merge.started',
  z.object({ ...mergeRef, baseCommit: z.string() }),
);
export const MergeChecking = defineWorkspaceEvent(
  'merge.checking',
  z.object({ ...mergeRef, command: z.string(), commit: z.string(), members: z.number().int() }),
);
export const MergeLanded = defineWorkspaceEvent(
  'merge.landed',
  z.object({
    ...mergeRef,
    commit: z.string(),
    previous: z.string(),
    check: MergeCheckOutcome,
    durationMs: z.number().int(),
    checkoutUpdated: z.string().nullable(),
  }),
);
export const MergeConflicted = defineWorkspaceEvent(
  'merge.conflicted',
  z.object({
    ...mergeRef,
    culprit: mergeMember,
    files: z.array(z.string()),
    durationMs: z.number().int(),
    replied: z.boolean(),
  }),
);
export const MergeFailed = defineWorkspaceEvent(
  'merge.failed',
  z.object({
    ...mergeRef,
    reason: z.enum(['check_failed', 'check_timed_out', 'refused', 'error']),
    message: z.string(),
    culprit: mergeMember.nullable(),
    check: MergeCheckOutcome,
    durationMs: z.number().int(),
    replied: z.boolean(),
  }),
);
export const PrPushed = defineWorkspaceEvent(
  'pr.pushed',
  z.object({ ...sessionRef, remote: z.string(), branch: z.string(), commit: z.string() }),
);
export const PrOpened = defineWorkspaceEvent(
  'pr.opened',
  z.object({
    ...sessionRef,
    via: z.enum(['gh', 'url', 'none']),
    url: z.string().nullable(),
    base: z.string(),
    branch: z.string(),
  }),
);
