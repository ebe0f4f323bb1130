/** Landing work: the merge queue, the landing plan, and pull requests. Operations are in `src/merge`. */
import { z } from 'zod';
import { MergeCheckOutcome } from '../events/workspace.js';
import { endpoint, type Table } from './endpoint.js';

export const MergeMember = z.object({ sessionId: z.string(), name: z.string() });

export const MergeRequest = z.object({
  sessions: z
    .array(z.string().min(1))
    .min(1)
    .max(50)
    .describe('Sessions (id, id prefix or name), merged in this order as one group'),
  squash: z.boolean().default(false).describe('One commit per session instead of its history'),
  planned: z
    .boolean()
    .default(false)
    .describe('Merge them in the order with the fewest conflicts (as the plan) instead of the given one'),
});

export const MergeView = z.object({
  mergeId: z.string(),
  project: z.string(),
  root: z.string(),
  base: z.string(),
  sessions: z.array(MergeMember),
  squash: z.boolean(),
  state: z.enum(['queued', 'merging', 'checking']),
  /** 1 for the merge running now; the rest wait behind it. */
  position: z.number().int().positive(),
  queuedAt: z.string(),
});
export type MergeView = z.infer<typeof MergeView>;

export const MergeResult = z.object({
  mergeId: z.string(),
  project: z.string(),
  base: z.string(),
  sessions: z.array(MergeMember),
  squash: z.boolean(),
  outcome: z.enum(['landed', 'conflicted', 'failed']),
  reason: z.enum(['landed', 'conflict', 'check_failed', 'check_timed_out', 'refused', 'error']),
  message: z.string(),
  /** The base's new tip (landed) and where it was before. */
  commit: z.string().nullable(),
  previous: z.string().nullable(),
  check: MergeCheckOutcome,
  /** The member that conflicted or broke the check (a group is bisected to it). */
  culprit: MergeMember.nullable(),
  files: z.array(z.string()),
  /** Whether the report reached the culprit (or the member) as a reply. */
  replied: z.boolean(),
  checkoutUpdated: z.string().nullable(),
  durationMs: z.number().int(),
  finishedAt: z.string(),
});
export type MergeResult = z.infer<typeof MergeResult>;

export const MergeQueuedView = z.object({
  merge: MergeView,
  seq: z.number().int().describe('The merge.queued event: follow /api/stream after seq − 1 for its progress'),
});
export const MergeListView = z.object({ queue: z.array(MergeView), recent: z.array(MergeResult) });
export type MergeListView = z.infer<typeof MergeListView>;

export const PlanStepView = z.object({
  sessionId: z.string(),
  name: z.string(),
  conflicts: z
    .array(z.string())
    .describe('Files expected to conflict when it merges after the sessions before it'),
  conflictsWith: z.array(z.string()).describe('Other ready sessions its work conflicts with'),
});
export const MergePlanView = z.object({
  project: z.string(),
  base: z.string(),
  baseCommit: z.string(),
  steps: z.array(PlanStepView),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
});
export type MergePlanView = z.infer<typeof MergePlanView>;
export const MergePlanQuery = z.object({
  project: z
    .string()
    .optional()
    .describe('Project root or name (default: the repository of the caller’s folder)'),
});

export const PrView = z.object({
  sessionId: z.string(),
  name: z.string(),
  remote: z.string(),
  branch: z.string(),
  base: z.string(),
  commit: z.string(),
  /** `gh`: opened with the GitHub CLI; `url`: open `url` by hand; `none`: pushed, no known page. */
  via: z.enum(['gh', 'url', 'none']),
  url: z.string().nullable(),
  /** Why gh was not used, when it was not. */
  note: z.string().nullable(),
  committedWork: z.boolean(),
});
export type PrView = z.infer<typeof PrView>;

export const MERGE = {
  'POST /api/merges': endpoint({
    summary:
      'Queue sessions to land (one merge at a time per repository); follow merge.* events for the result',
    body: MergeRequest,
    response: MergeQueuedView,
    status: 201,
  }),
  'GET /api/merges': endpoint({ summary: 'The merge queue and recent results', response: MergeListView }),
  'GET /api/merges/plan': endpoint({
    summary: 'The order that lands the ready sessions with the fewest conflicts',
    query: MergePlanQuery,
    response: MergePlanView,
  }),
  'POST /api/sessions/:ref/pr': endpoint({
    summary: 'Push the session branch and open a pull request (gh, else a compare URL)',
    response: PrView,
  }),
} satisfies Table;
