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

/** Every workspace event there is; a new domain adds its definitions here. */
export const WORKSPACE_EVENTS = [
  SessionDispatched,
  SessionStateChanged,
  SessionPinned,
  SessionRemoved,
  ReviewGroupsChanged,
  ReviewFileStateSet,
  ReviewFileStateReset,
  ReviewCommentSent,
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
  z.object({ ...envelope, type: z.literal(ReviewGroupsChanged.type), data: ReviewGroupsChanged.schema }),
  z.object({ ...envelope, type: z.literal(ReviewFileStateSet.type), data: ReviewFileStateSet.schema }),
  z.object({ ...envelope, type: z.literal(ReviewFileStateReset.type), data: ReviewFileStateReset.schema }),
  z.object({ ...envelope, type: z.literal(ReviewCommentSent.type), data: ReviewCommentSent.schema }),
]);
