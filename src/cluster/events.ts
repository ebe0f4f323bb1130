/**
 * The cluster's own events in the workspace log: what one machine tells the others about the
 * sessions it runs (decision 126). They travel in `workspace_events` beside the workspace's
 * events, but belong to the cluster layer: the workspace bus's consumers never see them.
 * The mirror's carry `machine` and `sessionId`, which the log's indexes look up; a relayed
 * workspace event carries `machine` and its seq on that machine.
 */
import { z } from 'zod';
import { defineWorkspaceEvent } from '../events/workspace/define.js';

/**
 * The latest view of one session, as its machine shows it: opaque past these fields, so a
 * machine of another version can add its own. `state` is any name, not today's enum, so a newer
 * machine's new state still shows here.
 */
export const SessionView = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  state: z.string().min(1),
  lastSeq: z.number().int().nonnegative(),
});
export type SessionView = z.infer<typeof SessionView>;

/** A normalized session event (`src/events`), opaque past its envelope and type. */
export const MirroredEvent = z.looseObject({
  seq: z.number().int().positive(),
  ts: z.string(),
  type: z.string().min(1),
});
export type MirroredEvent = z.infer<typeof MirroredEvent>;

const about = { machine: z.string().min(1), sessionId: z.string().min(1) };

export const ClusterSessionPublished = defineWorkspaceEvent(
  'cluster.session',
  z.object({ ...about, view: SessionView }),
);
export const ClusterSessionRemoved = defineWorkspaceEvent('cluster.session_removed', z.object(about));
export const ClusterEventPublished = defineWorkspaceEvent(
  'cluster.event',
  z.object({
    ...about,
    /** The event's own seq, top-level so an index can page a session's events by it. */
    eventSeq: z.number().int().positive(),
    event: MirroredEvent,
    /** Present when the event's text was cut to fit the size cap: how big it was. */
    cut: z.object({ originalBytes: z.number().int().positive() }).optional(),
  }),
);

/**
 * One workspace event of a machine (src/events/workspace.ts), relayed for the others' streams. The
 * event is opaque past its type, time and data, so a newer machine's new domain still travels.
 */
export const ClusterWorkspaceRelayed = defineWorkspaceEvent(
  'cluster.relayed',
  z.object({
    machine: z.string().min(1),
    /** Its seq on that machine: how far the relay got, read back after a crash. */
    localSeq: z.number().int().positive(),
    event: z.object({ type: z.string().min(1), ts: z.string(), data: z.unknown() }),
  }),
);

export const CLUSTER_EVENTS = [
  ClusterSessionPublished,
  ClusterSessionRemoved,
  ClusterEventPublished,
  ClusterWorkspaceRelayed,
] as const;
