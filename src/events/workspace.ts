/**
 * Workspace events: what happens around sessions — a session dispatched or removed, and later a
 * task moving, a merge landing, a routine firing, a watchdog alert. Each domain defines its
 * events once here (a dotted past-tense name and a zod schema for its data) and publishes them
 * on the workspace bus (`src/bus`), which stores them with one global sequence and delivers them
 * replay-then-live over `/api/stream`. A session's own `events.jsonl` stays the truth for that
 * session; these are the workspace's record.
 */
import { z } from 'zod';
import { SessionState, StateReason } from './index.js';

export interface WorkspaceEventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> {
  readonly type: T;
  readonly schema: S;
}

export function defineWorkspaceEvent<T extends string, S extends z.ZodType>(type: T, schema: S): WorkspaceEventDefinition<T, S> {
  return { type, schema };
}

// ── sessions ─────────────────────────────────────────────────────────────────

const sessionRef = { sessionId: z.string(), name: z.string(), project: z.string() };

export const SessionDispatched = defineWorkspaceEvent('session.dispatched', z.object({ ...sessionRef, agent: z.string(), branch: z.string() }));
export const SessionStateChanged = defineWorkspaceEvent(
  'session.state_changed',
  z.object({ ...sessionRef, from: SessionState.optional(), to: SessionState, reason: StateReason.optional() }),
);
export const SessionPinned = defineWorkspaceEvent('session.pinned', z.object({ ...sessionRef, pinned: z.boolean() }));
export const SessionRemoved = defineWorkspaceEvent('session.removed', z.object({ ...sessionRef, snapshotRef: z.string().nullable(), branchDeleted: z.boolean() }));

// ── radar (conflicts between live sessions, and with their moving base) ─────

const radarPair = {
  /** `<idA>:<idB>` (ids sorted) or `<id>:base`. */
  key: z.string(),
  project: z.string(),
  a: z.object({ sessionId: z.string(), name: z.string() }),
  /** The other session, or the base branch (`sessionId` null, `name` the branch). */
  b: z.object({ sessionId: z.string().nullable(), name: z.string() }),
};
const radarLevel = z.enum(['hot', 'soft']);

/** Every file both sides change, and those of them that are hot. */
const radarFiles = { files: z.array(z.string()), hotFiles: z.array(z.string()) };

export const RadarConflictFound = defineWorkspaceEvent('radar.conflict_found', z.object({ ...radarPair, level: radarLevel, ...radarFiles }));
export const RadarConflictChanged = defineWorkspaceEvent('radar.conflict_changed', z.object({ ...radarPair, level: radarLevel, previous: radarLevel, ...radarFiles }));
export const RadarConflictCleared = defineWorkspaceEvent(
  'radar.conflict_cleared',
  z.object({ ...radarPair, previous: radarLevel, reason: z.enum(['resolved', 'removed']) }),
);

// ── merge (the merge queue and pull requests: src/merge) ─────────────────────

const mergeMember = z.object({ sessionId: z.string(), name: z.string() });
const mergeRef = { mergeId: z.string(), project: z.string(), base: z.string(), sessions: z.array(mergeMember), squash: z.boolean() };
/** What the check did: `none` when the repository configures no check (said plainly, not hidden). */
export const MergeCheckOutcome = z.object({
  outcome: z.enum(['none', 'passed', 'failed', 'timed_out']),
  command: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  exitCode: z.number().int().nullable(),
  outputTail: z.string().nullable(),
});

export const MergeQueued = defineWorkspaceEvent('merge.queued', z.object({ ...mergeRef, position: z.number().int().positive() }));
export const MergeStarted = defineWorkspaceEvent('merge.started', z.object({ ...mergeRef, baseCommit: z.string() }));
export const MergeChecking = defineWorkspaceEvent('merge.checking', z.object({ ...mergeRef, command: z.string(), commit: z.string(), members: z.number().int() }));
export const MergeLanded = defineWorkspaceEvent(
  'merge.landed',
  z.object({ ...mergeRef, commit: z.string(), previous: z.string(), check: MergeCheckOutcome, durationMs: z.number().int(), checkoutUpdated: z.string().nullable() }),
);
export const MergeConflicted = defineWorkspaceEvent(
  'merge.conflicted',
  z.object({ ...mergeRef, culprit: mergeMember, files: z.array(z.string()), durationMs: z.number().int(), replied: z.boolean() }),
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
export const PrPushed = defineWorkspaceEvent('pr.pushed', z.object({ ...sessionRef, remote: z.string(), branch: z.string(), commit: z.string() }));
export const PrOpened = defineWorkspaceEvent(
  'pr.opened',
  z.object({ ...sessionRef, via: z.enum(['gh', 'url', 'none']), url: z.string().nullable(), base: z.string(), branch: z.string() }),
);

// ── review (src/review) ───────────────────────────────────────────────────────

const reviewGroup = z.object({ number: z.number().int().positive(), sessions: z.array(z.string()) });
/** The coupled groups of a project differ from the last ones computed (sessions named, oldest first). */
export const ReviewGroupsChanged = defineWorkspaceEvent('review.groups_changed', z.object({ project: z.string(), groups: z.array(reviewGroup) }));
export const ReviewFileStateSet = defineWorkspaceEvent(
  'review.file_state_set',
  z.object({ project: z.string(), group: z.number().int().positive(), path: z.string(), state: z.enum(['none', 'viewed', 'approved', 'changes_requested']), sessions: z.array(z.string()) }),
);
/** A file's review state no longer holds: its content changed since it was set. */
export const ReviewFileStateReset = defineWorkspaceEvent(
  'review.file_state_reset',
  z.object({ project: z.string(), path: z.string(), previous: z.enum(['viewed', 'approved', 'changes_requested']) }),
);
export const ReviewCommentSent = defineWorkspaceEvent(
  'review.comment_sent',
  z.object({ project: z.string(), group: z.number().int().positive(), path: z.string(), startLine: z.number().int(), endLine: z.number().int(), sessionId: z.string(), name: z.string() }),
);

// ── attempts (best-of groups and fan-outs: src/attempts) ─────────────────────

const attemptMember = z.object({ sessionId: z.string(), name: z.string() });
const attemptGroupRef = { groupId: z.string(), project: z.string(), taskId: z.string().nullable() };

export const AttemptStarted = defineWorkspaceEvent(
  'attempt.started',
  z.object({ ...attemptGroupRef, kind: z.enum(['best_of', 'fanout']), sessions: z.array(attemptMember.extend({ agent: z.string() })) }),
);
/** A person picked the winner; its merge is queued (`mergeId`, followed by merge.* events). */
export const AttemptPicked = defineWorkspaceEvent('attempt.picked', z.object({ ...attemptGroupRef, winner: attemptMember, mergeId: z.string() }));
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
  z.object({ ...attemptGroupRef, batch: z.number().int().positive(), failed: attemptMember, retry: attemptMember }),
);
export const AttemptFanoutFinished = defineWorkspaceEvent(
  'attempt.fanout_finished',
  z.object({ ...attemptGroupRef, batches: z.number().int(), done: z.number().int(), failed: z.number().int() }),
);

/** Every workspace event there is; a new domain adds its definitions here. */
export const WORKSPACE_EVENTS = [
  SessionDispatched,
  SessionStateChanged,
  SessionPinned,
  SessionRemoved,
  RadarConflictFound,
  RadarConflictChanged,
  RadarConflictCleared,
  MergeQueued,
  MergeStarted,
  MergeChecking,
  MergeLanded,
  MergeConflicted,
  MergeFailed,
  PrPushed,
  PrOpened,
  ReviewGroupsChanged,
  ReviewFileStateSet,
  ReviewFileStateReset,
  ReviewCommentSent,
  AttemptStarted,
  AttemptPicked,
  AttemptSettled,
  AttemptBatchRetried,
  AttemptFanoutFinished,
] as const;

type Definitions = (typeof WORKSPACE_EVENTS)[number];
type Envelope<D> = D extends WorkspaceEventDefinition<infer T, infer S> ? { seq: number; ts: string; type: T; data: z.output<S> } : never;

/** A stored workspace event: the bus's sequence number and time around a domain's data. */
export type WorkspaceEvent = Envelope<Definitions>;
export type WorkspaceEventType = WorkspaceEvent['type'];

const envelope = { seq: z.number().int().positive(), ts: z.string() };

export const WorkspaceEvent = z.discriminatedUnion('type', [
  z.object({ ...envelope, type: z.literal(SessionDispatched.type), data: SessionDispatched.schema }),
  z.object({ ...envelope, type: z.literal(SessionStateChanged.type), data: SessionStateChanged.schema }),
  z.object({ ...envelope, type: z.literal(SessionPinned.type), data: SessionPinned.schema }),
  z.object({ ...envelope, type: z.literal(SessionRemoved.type), data: SessionRemoved.schema }),
  z.object({ ...envelope, type: z.literal(RadarConflictFound.type), data: RadarConflictFound.schema }),
  z.object({ ...envelope, type: z.literal(RadarConflictChanged.type), data: RadarConflictChanged.schema }),
  z.object({ ...envelope, type: z.literal(RadarConflictCleared.type), data: RadarConflictCleared.schema }),
  // merge
  z.object({ ...envelope, type: z.literal(MergeQueued.type), data: MergeQueued.schema }),
  z.object({ ...envelope, type: z.literal(MergeStarted.type), data: MergeStarted.schema }),
  z.object({ ...envelope, type: z.literal(MergeChecking.type), data: MergeChecking.schema }),
  z.object({ ...envelope, type: z.literal(MergeLanded.type), data: MergeLanded.schema }),
  z.object({ ...envelope, type: z.literal(MergeConflicted.type), data: MergeConflicted.schema }),
  z.object({ ...envelope, type: z.literal(MergeFailed.type), data: MergeFailed.schema }),
  z.object({ ...envelope, type: z.literal(PrPushed.type), data: PrPushed.schema }),
  z.object({ ...envelope, type: z.literal(PrOpened.type), data: PrOpened.schema }),
  z.object({ ...envelope, type: z.literal(ReviewGroupsChanged.type), data: ReviewGroupsChanged.schema }),
  z.object({ ...envelope, type: z.literal(ReviewFileStateSet.type), data: ReviewFileStateSet.schema }),
  z.object({ ...envelope, type: z.literal(ReviewFileStateReset.type), data: ReviewFileStateReset.schema }),
  z.object({ ...envelope, type: z.literal(ReviewCommentSent.type), data: ReviewCommentSent.schema }),
  // attempts
  z.object({ ...envelope, type: z.literal(AttemptStarted.type), data: AttemptStarted.schema }),
  z.object({ ...envelope, type: z.literal(AttemptPicked.type), data: AttemptPicked.schema }),
  z.object({ ...envelope, type: z.literal(AttemptSettled.type), data: AttemptSettled.schema }),
  z.object({ ...envelope, type: z.literal(AttemptBatchRetried.type), data: AttemptBatchRetried.schema }),
  z.object({ ...envelope, type: z.literal(AttemptFanoutFinished.type), data: AttemptFanoutFinished.schema }),
]);
