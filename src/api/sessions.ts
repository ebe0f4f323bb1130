/** Sessions: dispatch, look, answer, steer and remove. Shapes are in `index.ts`. */
import { z } from 'zod';
import { MemoryHeadroom } from './daemon.js';
import { endpoint, type Table } from './endpoint.js';
import {
  AcceptDangerousModeRequest,
  ApprovalRequest,
  PlacedDispatchRequest,
  PeekView,
  PinRequest,
  RemoveView,
  ReplyRequest,
  RespawnAllRequest,
  SessionView,
} from './index.js';

export const SessionEnvelope = z.object({ session: SessionView });
export type SessionEnvelope = z.infer<typeof SessionEnvelope>;
/**
 * A dispatch's answer also says whether the main checkout had uncommitted changes, and whether
 * they came along, and what the session was dispatched into: a budget or subscription window
 * that runs out within the hour at the current rate (the dispatch goes ahead all the same).
 */
export const DispatchedEnvelope = SessionEnvelope.extend({
  /** When the dispatch named no agent: which one Baton chose and why (decision 185). */
  agentChosen: z.string().optional(),
  mainCheckout: z.object({ changedFiles: z.number().int(), carried: z.boolean() }),
  /** Optional only for a supervisor started before it existed: this one always sends it. */
  warnings: z
    .array(z.string())
    .optional()
    .describe(
      'Budgets and subscription windows that run out within the hour at the current burn rate, e.g. "the 5h window budget runs out in 20 min at this rate"',
    ),
});
/**
 * Another machine's session respawned here or elsewhere (decision 127, "A shared workspace in the
 * supervisor") may say how: e.g. that it starts fresh, nothing having been pushed.
 */
export const RespawnedEnvelope = SessionEnvelope.extend({
  warnings: z
    .array(z.string())
    .optional()
    .describe(
      'How the respawn differs from the session it replaces, e.g. "the remote has no branch baton/x (nothing was pushed), so x starts fresh from main"',
    ),
});
export const WorkSizeView = z.object({
  files: z.number().int(),
  additions: z.number().int(),
  deletions: z.number().int(),
});
export const ReviewQueueView = WorkSizeView.extend({
  sessions: z.number().int().describe('Sessions ready for review'),
  measuring: z.number().int().describe('Of those, how many are not measured yet (left out of the sums)'),
}).describe(
  'Sessions ready for review and the size of their work: review, not agent count, is the bottleneck',
);
export type ReviewQueueView = z.infer<typeof ReviewQueueView>;
export const RemovedSessionView = SessionView.extend({
  removedAt: z.string(),
  /** Where its uncommitted work was kept when its worktree went, if there was any. */
  snapshotRef: z.string().nullable(),
});
export const SessionList = z.object({
  sessions: z.array(SessionView),
  reviewQueue: ReviewQueueView.optional(),
  /** The machine's memory headroom for new sessions (decision 260), for the list's footer. */
  memory: MemoryHeadroom.optional(),
  /** With `removed=1`: landed and removed sessions, newest first — their transcripts stay readable. */
  removed: z.array(RemovedSessionView).optional(),
});
export type SessionList = z.infer<typeof SessionList>;
export const SessionListQuery = z.object({
  project: z.string().optional().describe('Project root or name'),
  removed: z
    .string()
    .optional()
    .transform((value) => value === '1' || value === 'true')
    .describe('1: the landed and removed sessions too (their record: transcript, decisions)'),
});
export const RespawnQuery = z.object({
  on: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "For another machine's lost session: the machine to run it on (default: here while a slot is free, else any)",
    ),
});
export const DangerousModeAccepted = z.object({ root: z.string() });

const ACTIONS = {
  interrupt: 'End the current turn',
  stop: 'Stop the agent',
  respawn:
    'Restart in the same worktree; another machine’s session lost with its machine is placed again from its pushed branch',
  done: 'Mark completed',
} as const;

export const SESSIONS = {
  'GET /api/sessions': endpoint({
    summary: 'Live sessions',
    query: SessionListQuery,
    response: SessionList,
    sessions: 'read',
  }),
  'POST /api/sessions': endpoint({
    summary: 'Dispatch a session',
    body: PlacedDispatchRequest,
    response: DispatchedEnvelope,
    status: 201,
  }),
  'POST /api/sessions/respawn-all': endpoint({
    summary: 'Respawn every failed or stopped session',
    body: RespawnAllRequest,
    response: SessionList,
  }),
  'POST /api/dangerous-mode/accept': endpoint({
    summary: 'Accept dangerous permission modes for the repository holding `cwd`',
    body: AcceptDangerousModeRequest,
    response: DangerousModeAccepted,
    tokenOnly: true,
  }),
  'GET /api/sessions/:ref': endpoint({
    summary: 'One session by id, id prefix or name',
    response: SessionEnvelope,
    sessions: 'read',
  }),
  'GET /api/sessions/:ref/peek': endpoint({
    summary: 'What the session is doing now',
    response: PeekView,
    sessions: 'read',
  }),
  'POST /api/sessions/:ref/reply': endpoint({
    summary: 'Answer a question or send a follow-up',
    body: ReplyRequest,
    response: SessionEnvelope,
  }),
  'POST /api/sessions/:ref/approval': endpoint({
    summary: 'Allow or deny the pending tool call',
    body: ApprovalRequest,
    response: SessionEnvelope,
  }),
  'POST /api/sessions/:ref/interrupt': endpoint({ summary: ACTIONS.interrupt, response: SessionEnvelope }),
  'POST /api/sessions/:ref/stop': endpoint({ summary: ACTIONS.stop, response: SessionEnvelope }),
  'POST /api/sessions/:ref/respawn': endpoint({
    summary: ACTIONS.respawn,
    query: RespawnQuery,
    response: RespawnedEnvelope,
  }),
  'POST /api/sessions/:ref/done': endpoint({ summary: ACTIONS.done, response: SessionEnvelope }),
  'POST /api/sessions/:ref/pin': endpoint({
    summary: 'Pin or unpin',
    body: PinRequest,
    response: SessionEnvelope,
  }),
  'DELETE /api/sessions/:ref': endpoint({
    summary: 'Remove the session and its worktree (uncommitted work kept in a ref)',
    response: RemoveView,
  }),
} satisfies Table;
