/** Attempts (src/attempts): best-of groups and fan-outs. */
import { z } from 'zod';
import { defineWorkspaceEvent } from './define.js';

const attemptMember = z.object({ sessionId: z.string(), name: z.string() });
const attemptGroupRef = { groupId: z.string(), project: z.string(), taskId: z.string().nullable() };

export const AttemptStarted = defineWorkspaceEvent(
  'attempt.started',
  z.object({
    ...attemptGroupRef,
    kind: z.enum(['best_of', 'fanout']),
    sessions: z.array(attemptMember.extend({ agent: z.string() })),
  }),
);
/** A person picked the winner; its merge is queued (`mergeId`, followed by merge.* events). */
export const AttemptPicked = defineWorkspaceEvent(
  'attempt.picked',
  z.object({ ...attemptGroupRef, winner: attemptMember, mergeId: z.string() }),
);
/** The pick ended: landed (the others archived, their work kept) or not (nothing archived). */
export const AttemptSettled = defineWorkspaceEvent(
  'attempt.settled',
  z.object({
    ...attemptGroupRef,
    winner: attemptMember,
    outcome: z.enum(['landed', 'not_landed']),
    message: z.string(),
    archived: z.array(attemptMember.extend({ snapshotRef: z.string().nullable(), branch: z.string() })),
  }),
);
export const AttemptBatchRetried = defineWorkspaceEvent(
  'attempt.batch_retried',
  z.object({
    ...attemptGroupRef,
    batch: z.number().int().positive(),
    failed: attemptMember,
    retry: attemptMember,
  }),
);
export const AttemptFanoutFinished = defineWorkspaceEvent(
  'attempt.fanout_finished',
  z.object({
    ...attemptGroupRef,
    batches: z.number().int(),
    done: z.number().int(),
    failed: z.number().int(),
  }),
);
