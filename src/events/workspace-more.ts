/**
 * Workspace events of the domains that watch and extend the work: the gate's allow rules, the
 * watchdog and budgets, transcripts and handoffs, attempts, and routines. Defined here, listed
 * with the others in `workspace.ts` (the bus's one union).
 */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './workspace-define.js';

// ── policy (the destructive-action gate's allow rules) ──────────────────────

/** An allow rule: calls of `tool` (or any command-running tool) whose command starts with `pattern`, in `project` (or everywhere). */
const allowRule = {
  ruleId: z.number().int().positive(),
  project: z.string().nullable(),
  tool: z.string().nullable(),
  pattern: z.string().nullable(),
};
export const PolicyAllowAdded = defineWorkspaceEvent(
  'policy.allow_added',
  z.object({ ...allowRule, source: z.enum(['cli', 'approval', 'page']) }),
);
export const PolicyAllowRevoked = defineWorkspaceEvent('policy.allow_revoked', z.object(allowRule));
/** An approval answered by an allow rule, without reaching the user. */
export const PolicyAutoApproved = defineWorkspaceEvent(
  'policy.auto_approved',
  z.object({
    ...sessionRef,
    ruleId: z.number().int().positive(),
    requestId: z.string(),
    tool: z.string(),
    input: z.string(),
  }),
);
// ── watchdog and budgets (src/watchdog, src/usage) ──────────────────────────

export const ALERT_RULES = [
  'budget',
  'budget_warning',
  'window',
  'no_progress',
  'loop',
  'repeated_errors',
  'out_of_scope',
  'approval_wait',
  'no_change',
  'config',
] as const;
export const AlertRule = z.enum(ALERT_RULES);
export const AlertAction = z.enum(['alert', 'pause', 'stop']);

/** Something a person should look at, with what was seen; `action` is what the watchdog did about it. */
export const WatchdogAlertRaised = defineWorkspaceEvent(
  'watchdog.alert_raised',
  z.object({
    alertId: z.string(),
    rule: AlertRule,
    sessionId: z.string().nullable(),
    name: z.string().nullable(),
    project: z.string().nullable(),
    message: z.string(),
    evidence: z.array(z.string()),
    action: AlertAction,
  }),
);
export const WatchdogAlertAcknowledged = defineWorkspaceEvent(
  'watchdog.alert_acknowledged',
  z.object({ alertId: z.string() }),
);
const budgetScope = { scope: z.string(), windowMs: z.number().int().positive().nullable() };
export const BudgetSet = defineWorkspaceEvent(
  'budget.set',
  z.object({ ...budgetScope, limitUsd: z.number().positive(), warnRatio: z.number() }),
);
export const BudgetRemoved = defineWorkspaceEvent('budget.removed', z.object({ scope: z.string() }));
/** A session the watchdog paused for its budget was let go on again (the budget was raised). */
export const BudgetResumed = defineWorkspaceEvent(
  'budget.resumed',
  z.object({ ...sessionRef, spentUsd: z.number(), limitUsd: z.number() }),
);
// ── context (transcripts, search, handoff, import: src/context) ──────────────

export const HandoffCreated = defineWorkspaceEvent(
  'handoff.created',
  z.object({
    handoffId: z.string(),
    from: z.object({ sessionId: z.string(), name: z.string(), agent: z.string() }),
    to: z.object({ sessionId: z.string(), name: z.string(), agent: z.string() }),
    packTokens: z.number().int(),
    budgetTokens: z.number().int(),
  }),
);
export const TranscriptsImported = defineWorkspaceEvent(
  'transcripts.imported',
  z.object({
    vendor: z.enum(['claude', 'codex']),
    files: z.number().int(),
    sessions: z.number().int(),
    events: z.number().int(),
  }),
);

// ── attempts (best-of groups and fan-outs: src/attempts) ─────────────────────

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

/** Every workspace event there is; a new domain adds its definitions here. */
// ── routines (scheduled and triggered agents: src/routines) ──────────────────

const routineRef = { routineId: z.string(), routine: z.string(), project: z.string() };
/** What started (or would have started) a run: `schedule`, `missed`, `manual`, or a trigger such as `tag:v1.2`. */
const routineRun = { runId: z.number().int(), trigger: z.string() };

export const RoutineAdded = defineWorkspaceEvent(
  'routine.added',
  z.object({ ...routineRef, when: z.string(), nextRunAt: z.string().nullable() }),
);
export const RoutineChanged = defineWorkspaceEvent(
  'routine.changed',
  z.object({ ...routineRef, paused: z.boolean(), nextRunAt: z.string().nullable() }),
);
export const RoutineRemoved = defineWorkspaceEvent('routine.removed', z.object({ ...routineRef }));
export const RoutineFired = defineWorkspaceEvent(
  'routine.fired',
  z.object({
    ...routineRef,
    ...routineRun,
    dueAt: z.string().nullable(),
    sessionId: z.string(),
    sessionName: z.string(),
  }),
);
export const RoutineSkipped = defineWorkspaceEvent(
  'routine.skipped',
  z.object({ ...routineRef, ...routineRun, outcome: z.enum(['skipped', 'missed']), cause: z.string() }),
);
export const RoutineFinished = defineWorkspaceEvent(
  'routine.finished',
  z.object({
    ...routineRef,
    ...routineRun,
    outcome: z.enum(['findings', 'nothing', 'failed']),
    /** The finding's first lines, the failure's cause, or why there was nothing. */
    summary: z.string(),
    sessionId: z.string().nullable(),
    sessionName: z.string().nullable(),
    costUsd: z.number().nullable(),
  }),
);
// ── sync (src/sync: sessions' work pushed to the shared remote at turn ends) ──

/** The branch (and, when there is uncommitted work, its snapshot) reached the remote. */
export const SyncPushed = defineWorkspaceEvent(
  'sync.pushed',
  z.object({
    ...sessionRef,
    remote: z.string(),
    /** `refs/heads/baton/<name>` on the remote. */
    ref: z.string(),
    commit: z.string(),
    /** `refs/baton/snapshots/<session id>`, and the commit of the uncommitted work on top of `commit`; null when the work was all committed. */
    snapshotRef: z.string().nullable(),
    snapshotCommit: z.string().nullable(),
    ms: z.number().int(),
  }),
);
/** A push that did not happen or was refused; `reason` says why in words, `kind` for scripts. */
export const SyncFailed = defineWorkspaceEvent(
  'sync.failed',
  z.object({
    ...sessionRef,
    remote: z.string(),
    kind: z.enum(['no_remote', 'moved', 'rejected', 'timed_out', 'error']),
    reason: z.string(),
    /** Failures in a row, this one included; the next turn-end push waits out a backoff that grows with it. */
    failures: z.number().int().positive(),
  }),
);
