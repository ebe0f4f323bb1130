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
import { ColumnSetBy, TaskCard, TaskColumn } from './task-card.js';
import { defineWorkspaceEvent, sessionRef, type WorkspaceEventDefinition } from './workspace-define.js';
import {
  PolicyAllowAdded,
  PolicyAllowRevoked,
  PolicyAutoApproved,
  WatchdogAlertRaised,
  WatchdogAlertAcknowledged,
  BudgetSet,
  BudgetRemoved,
  BudgetResumed,
  HandoffCreated,
  TranscriptsImported,
  AttemptStarted,
  AttemptPicked,
  AttemptSettled,
  AttemptBatchRetried,
  AttemptFanoutFinished,
  RoutineAdded,
  RoutineChanged,
  RoutineRemoved,
  RoutineFired,
  RoutineSkipped,
  RoutineFinished,
  SyncPushed,
  SyncFailed,
} from './workspace-more.js';

export { defineWorkspaceEvent, sessionRef, type WorkspaceEventDefinition } from './workspace-define.js';
export * from './workspace-more.js';

// ── sessions ─────────────────────────────────────────────────────────────────

export const SessionDispatched = defineWorkspaceEvent(
  'session.dispatched',
  z.object({ ...sessionRef, agent: z.string(), branch: z.string() }),
);
export const SessionStateChanged = defineWorkspaceEvent(
  'session.state_changed',
  z.object({
    ...sessionRef,
    from: SessionState.optional(),
    to: SessionState,
    reason: StateReason.optional(),
  }),
);
export const SessionPinned = defineWorkspaceEvent(
  'session.pinned',
  z.object({ ...sessionRef, pinned: z.boolean() }),
);
export const SessionRemoved = defineWorkspaceEvent(
  'session.removed',
  z.object({ ...sessionRef, snapshotRef: z.string().nullable(), branchDeleted: z.boolean() }),
);

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

export const RadarConflictFound = defineWorkspaceEvent(
  'radar.conflict_found',
  z.object({ ...radarPair, level: radarLevel, ...radarFiles }),
);
export const RadarConflictChanged = defineWorkspaceEvent(
  'radar.conflict_changed',
  z.object({ ...radarPair, level: radarLevel, previous: radarLevel, ...radarFiles }),
);
export const RadarConflictCleared = defineWorkspaceEvent(
  'radar.conflict_cleared',
  z.object({ ...radarPair, previous: radarLevel, reason: z.enum(['resolved', 'removed']) }),
);

// ── merge (the merge queue and pull requests: src/merge) ─────────────────────

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

// ── review (src/review) ───────────────────────────────────────────────────────

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

// ── tasks (src/tasks): each carries the whole card, so a page updates without asking again ──

export const TaskAdded = defineWorkspaceEvent('task.added', z.object({ task: TaskCard }));
export const TaskEdited = defineWorkspaceEvent(
  'task.edited',
  z.object({ task: TaskCard, fields: z.array(z.string()) }),
);
export const TaskMoved = defineWorkspaceEvent(
  'task.moved',
  z.object({ task: TaskCard, from: TaskColumn, to: TaskColumn, by: ColumnSetBy }),
);
export const TaskRemoved = defineWorkspaceEvent(
  'task.removed',
  z.object({ taskId: z.number().int(), project: z.string(), title: z.string() }),
);
export const TaskSessionLinked = defineWorkspaceEvent(
  'task.session_linked',
  z.object({ task: TaskCard, sessionId: z.string(), name: z.string(), agent: z.string() }),
);
const taskEntry = z.object({
  taskId: z.number().int(),
  project: z.string(),
  title: z.string(),
  file: z.string(),
  text: z.string(),
});
export const TaskDecided = defineWorkspaceEvent('task.decided', taskEntry);
export const TaskNoted = defineWorkspaceEvent('task.noted', taskEntry);
/**
 * Another machine's change to a shared repository's tasks reached this machine's board (decision
 * 143): the page reads the board again. Its own `task.*` event comes relayed; this one is never
 * relayed.
 */
export const TaskSynced = defineWorkspaceEvent(
  'task.synced',
  z.object({ project: z.string(), changed: z.array(z.number().int()), removed: z.array(z.number().int()) }),
);
// ── agents through Baton's MCP server (src/mcp) ──────────────────────────────

/** Who acted: a session's agent, or (sessionId null) an MCP client outside Baton. */
const agentAuthor = z.object({ sessionId: z.string().nullable(), name: z.string() });
export const SessionMessageSent = defineWorkspaceEvent(
  'session.message_sent',
  z.object({
    from: agentAuthor,
    to: z.object(sessionRef),
    text: z.string(),
    delivery: z.enum(['now', 'after_turn', 'after_answer']),
  }),
);
/**
 * What agents record through the MCP server until the tasks domain holds them: each is its own
 * event (its seq is the record's id), listed back by type (decision 97). `project` is the author's project root, or null.
 */
const agentRecord = { author: agentAuthor, project: z.string().nullable() };
export const AgentDecisionRecorded = defineWorkspaceEvent(
  'agent.decision_recorded',
  z.object({ ...agentRecord, title: z.string(), text: z.string() }),
);
export const AgentNoteAdded = defineWorkspaceEvent(
  'agent.note_added',
  z.object({ ...agentRecord, text: z.string() }),
);
export const AgentTaskCreated = defineWorkspaceEvent(
  'agent.task_created',
  z.object({ ...agentRecord, title: z.string(), description: z.string() }),
);
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
  RoutineAdded,
  RoutineChanged,
  RoutineRemoved,
  RoutineFired,
  RoutineSkipped,
  RoutineFinished,
  TaskAdded,
  TaskEdited,
  TaskMoved,
  TaskRemoved,
  TaskSessionLinked,
  TaskDecided,
  TaskNoted,
  TaskSynced,
  SessionMessageSent,
  AgentDecisionRecorded,
  AgentNoteAdded,
  AgentTaskCreated,
  PolicyAllowAdded,
  PolicyAllowRevoked,
  PolicyAutoApproved,
  WatchdogAlertRaised,
  WatchdogAlertAcknowledged,
  BudgetSet,
  BudgetRemoved,
  BudgetResumed,
  HandoffCreated,
  TranscriptsImported,
  AttemptStarted,
  AttemptPicked,
  AttemptSettled,
  AttemptBatchRetried,
  AttemptFanoutFinished,
  SyncPushed,
  SyncFailed,
] as const;

type Definitions = (typeof WORKSPACE_EVENTS)[number];
type Envelope<D> =
  D extends WorkspaceEventDefinition<infer T, infer S>
    ? { seq: number; ts: string; type: T; data: z.output<S> }
    : never;

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
  // routines
  z.object({ ...envelope, type: z.literal(RoutineAdded.type), data: RoutineAdded.schema }),
  z.object({ ...envelope, type: z.literal(RoutineChanged.type), data: RoutineChanged.schema }),
  z.object({ ...envelope, type: z.literal(RoutineRemoved.type), data: RoutineRemoved.schema }),
  z.object({ ...envelope, type: z.literal(RoutineFired.type), data: RoutineFired.schema }),
  z.object({ ...envelope, type: z.literal(RoutineSkipped.type), data: RoutineSkipped.schema }),
  z.object({ ...envelope, type: z.literal(RoutineFinished.type), data: RoutineFinished.schema }),
  // tasks
  z.object({ ...envelope, type: z.literal(TaskAdded.type), data: TaskAdded.schema }),
  z.object({ ...envelope, type: z.literal(TaskEdited.type), data: TaskEdited.schema }),
  z.object({ ...envelope, type: z.literal(TaskMoved.type), data: TaskMoved.schema }),
  z.object({ ...envelope, type: z.literal(TaskRemoved.type), data: TaskRemoved.schema }),
  z.object({ ...envelope, type: z.literal(TaskSessionLinked.type), data: TaskSessionLinked.schema }),
  z.object({ ...envelope, type: z.literal(TaskDecided.type), data: TaskDecided.schema }),
  z.object({ ...envelope, type: z.literal(TaskNoted.type), data: TaskNoted.schema }),
  z.object({ ...envelope, type: z.literal(TaskSynced.type), data: TaskSynced.schema }),
  // agents through the MCP server
  z.object({ ...envelope, type: z.literal(SessionMessageSent.type), data: SessionMessageSent.schema }),
  z.object({ ...envelope, type: z.literal(AgentDecisionRecorded.type), data: AgentDecisionRecorded.schema }),
  z.object({ ...envelope, type: z.literal(AgentNoteAdded.type), data: AgentNoteAdded.schema }),
  z.object({ ...envelope, type: z.literal(AgentTaskCreated.type), data: AgentTaskCreated.schema }),
  z.object({ ...envelope, type: z.literal(PolicyAllowAdded.type), data: PolicyAllowAdded.schema }),
  z.object({ ...envelope, type: z.literal(PolicyAllowRevoked.type), data: PolicyAllowRevoked.schema }),
  z.object({ ...envelope, type: z.literal(PolicyAutoApproved.type), data: PolicyAutoApproved.schema }),
  // watchdog
  z.object({ ...envelope, type: z.literal(WatchdogAlertRaised.type), data: WatchdogAlertRaised.schema }),
  z.object({
    ...envelope,
    type: z.literal(WatchdogAlertAcknowledged.type),
    data: WatchdogAlertAcknowledged.schema,
  }),
  z.object({ ...envelope, type: z.literal(BudgetSet.type), data: BudgetSet.schema }),
  z.object({ ...envelope, type: z.literal(BudgetRemoved.type), data: BudgetRemoved.schema }),
  z.object({ ...envelope, type: z.literal(BudgetResumed.type), data: BudgetResumed.schema }),
  // context
  z.object({ ...envelope, type: z.literal(HandoffCreated.type), data: HandoffCreated.schema }),
  z.object({ ...envelope, type: z.literal(TranscriptsImported.type), data: TranscriptsImported.schema }),
  // attempts
  z.object({ ...envelope, type: z.literal(AttemptStarted.type), data: AttemptStarted.schema }),
  z.object({ ...envelope, type: z.literal(AttemptPicked.type), data: AttemptPicked.schema }),
  z.object({ ...envelope, type: z.literal(AttemptSettled.type), data: AttemptSettled.schema }),
  z.object({ ...envelope, type: z.literal(AttemptBatchRetried.type), data: AttemptBatchRetried.schema }),
  z.object({ ...envelope, type: z.literal(AttemptFanoutFinished.type), data: AttemptFanoutFinished.schema }),
  // sync
  z.object({ ...envelope, type: z.literal(SyncPushed.type), data: SyncPushed.schema }),
  z.object({ ...envelope, type: z.literal(SyncFailed.type), data: SyncFailed.schema }),
]);
