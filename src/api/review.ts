/** Review: coupled sessions grouped, each group's combined diff attributed per hunk, per-file state, comments back to the writer. */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

export const REVIEW_FILE_STATES = ['none', 'viewed', 'approved', 'changes_requested'] as const;
export const ReviewFileState = z.enum(REVIEW_FILE_STATES);

const Location = z.object({ session: z.string(), path: z.string() });
export const CouplingReason = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('same_file'),
    path: z.string(),
    sessions: z.array(z.string()),
    text: z.string(),
  }),
  z.object({
    kind: z.enum(['imports', 'tests', 'mentions']),
    from: Location,
    to: Location,
    via: z.string().optional(),
    text: z.string(),
  }),
]);

export const ReviewMember = z.object({
  id: z.string(),
  name: z.string(),
  state: z.string(),
  branch: z.string(),
  /** Files the session changed against its base (uncommitted and untracked included). */
  filesChanged: z.number().int(),
});

export const ReviewGroupSummary = z.object({
  number: z.number().int().positive(),
  members: z.array(ReviewMember),
  reasons: z.array(CouplingReason),
});

export const ReviewProjectGroups = z.object({
  project: z.string(),
  root: z.string(),
  groups: z.array(ReviewGroupSummary),
});
export const ReviewGroupList = z.object({
  projects: z.array(ReviewProjectGroups),
  /** Milliseconds the supervisor spent computing the groups. */
  ms: z.number(),
});
export type ReviewGroupList = z.infer<typeof ReviewGroupList>;

export const ReviewLine = z.object({
  kind: z.enum(['+', '-', ' ']),
  text: z.string(),
  old: z.number().int().nullable(),
  new: z.number().int().nullable(),
  by: z.array(z.string()),
});
export const ReviewHunk = z.object({
  header: z.string(),
  oldStart: z.number().int(),
  oldCount: z.number().int(),
  newStart: z.number().int(),
  newCount: z.number().int(),
  sessions: z.array(z.string()),
  lines: z.array(ReviewLine),
});
export const ReviewFile = z.object({
  path: z.string(),
  oldPath: z.string().nullable(),
  status: z.enum(['added', 'deleted', 'modified']),
  binary: z.boolean(),
  sessions: z.array(z.string()),
  conflict: z.object({ sessions: z.array(z.string()) }).nullable(),
  state: ReviewFileState,
  hunks: z.array(ReviewHunk),
  /** Changed lines left out because the file's change is too large to read here (lock files, generated code); 0 normally. */
  omittedLines: z.number().int(),
});
export const GroupReview = z.object({
  project: z.string(),
  root: z.string(),
  number: z.number().int().positive(),
  base: z.string(),
  members: z.array(ReviewMember),
  reasons: z.array(CouplingReason),
  /** Files whose changes by different members do not merge; each side is shown in `files`. */
  conflicts: z.array(z.object({ path: z.string(), sessions: z.array(z.string()) })),
  files: z.array(ReviewFile),
});
export type GroupReview = z.infer<typeof GroupReview>;
export type ReviewFile = z.infer<typeof ReviewFile>;
export type ReviewHunk = z.infer<typeof ReviewHunk>;
export type ReviewGroupSummary = z.infer<typeof ReviewGroupSummary>;

export const ReviewQuery = z.object({
  project: z
    .string()
    .optional()
    .describe('Project name or root (default: the caller’s repository, or the only project)'),
});

export const ReviewFileStateRequest = z.object({
  path: z.string().min(1),
  state: ReviewFileState.describe('`none` clears the state'),
  message: z
    .string()
    .max(20_000)
    .optional()
    .describe(
      'With `changes_requested` only: what to change, sent to the sessions that changed the file as a reply',
    ),
});
export const ReviewFileStateView = z.object({
  path: z.string(),
  state: ReviewFileState,
  sessions: z.array(z.string()),
  /** The sessions the message went to (none without a message). */
  sentTo: z.array(z.object({ id: z.string(), name: z.string() })),
});

export const ReviewCommentRequest = z.object({
  path: z.string().min(1),
  line: z
    .number()
    .int()
    .positive()
    .describe('A line of the combined file (the new side), inside a changed hunk'),
  endLine: z.number().int().positive().optional().describe('Last line of a range (default: `line`)'),
  text: z.string().max(20_000),
  session: z
    .string()
    .optional()
    .describe('Send only to this session (name or id) when several wrote the lines'),
});
export const ReviewCommentView = z.object({
  sentTo: z.array(z.object({ id: z.string(), name: z.string() })),
  /** The reply each session received. */
  reply: z.string(),
});

export const REVIEW = {
  'GET /api/review/groups': endpoint({
    summary: 'Coupled sessions grouped (by shared files, imports, tests), each group with why',
    query: ReviewQuery,
    response: ReviewGroupList,
  }),
  'GET /api/review/groups/:n': endpoint({
    summary:
      "A group's combined diff against its base, each hunk attributed to the session(s) that wrote it, with per-file state",
    query: ReviewQuery,
    response: GroupReview,
  }),
  'POST /api/review/groups/:n/files': endpoint({
    summary: "Set a file's review state in the group (reset when its content changes)",
    query: ReviewQuery,
    body: ReviewFileStateRequest,
    response: ReviewFileStateView,
  }),
  'POST /api/review/groups/:n/comments': endpoint({
    summary: 'Comment on lines of the combined diff: sent as a reply to the session(s) that wrote them',
    query: ReviewQuery,
    body: ReviewCommentRequest,
    response: ReviewCommentView,
  }),
} satisfies Table;
