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

/** Every workspace event there is; a new domain adds its definitions here. */
export const WORKSPACE_EVENTS = [
  SessionDispatched,
  SessionStateChanged,
  SessionPinned,
  SessionRemoved,
  RadarConflictFound,
  RadarConflictChanged,
  RadarConflictCleared,
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
]);
