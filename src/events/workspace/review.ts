/** Review (src/review): coupled groups, each file's review state, comments sent to sessions. */
import { z } from 'zod';
import { defineWorkspaceEvent } from './define.js';

const reviewGroup = z.object({ number: z.number().int().positive(), sessions: z.array(z.string()) });
/** The coupled groups of a project differ from the last ones computed (sessions named, oldest first). */
export const ReviewGroupsChanged = defineWorkspaceEvent(
  'review.groups_changed',
  z.object({ project: z.string(), groups: z.array(reviewGroup) }),
);
export const ReviewFileStateSet = defineWorkspaceEvent(
  'review.file_state_set',
  z.object({
    project: z.string(),
    group: z.number().int().positive(),
    path: z.string(),
    state: z.enum(['none', 'viewed', 'approved', 'changes_requested']),
    sessions: z.array(z.string()),
  }),
);
/** A file's review state no longer holds: its content changed since it was set. */
export const ReviewFileStateReset = defineWorkspaceEvent(
  'review.file_state_reset',
  z.object({
    project: z.string(),
    path: z.string(),
    previous: z.enum(['viewed', 'approved', 'changes_requested']),
  }),
);
export const ReviewCommentSent = defineWorkspaceEvent(
  'review.comment_sent',
  z.object({
    project: z.string(),
    group: z.number().int().positive(),
    path: z.string(),
    startLine: z.number().int(),
    endLine: z.number().int(),
    sessionId: z.string(),
    name: z.string(),
  }),
);
