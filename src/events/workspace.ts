/**
 * Workspace events: what happens around sessions — a session dispatched or removed, a task
 * moving, a merge landing, a routine firing, a watchdog alert. Each domain defines its events once,
 * in its own module of `workspace/` (a dotted past-tense name and a zod schema for its data), and
 * publishes them on the workspace bus (`src/bus`), which stores them with one global sequence and
 * delivers them replay-then-live over `/api/stream`. A session's own `events.jsonl` stays the truth
 * for that session; these are the workspace's record.
 *
 * Nothing here lists an event by name: the union below, its type and its schema are derived from
 * every definition the domains' modules export, so a new event is written once, where it is
 * defined. A new domain adds its module to `DOMAINS`.
 */
import { z } from 'zod';
import * as agents from './workspace/agents.js';
import * as approvals from './workspace/approvals.js';
import * as attempts from './workspace/attempts.js';
import * as context from './workspace/context.js';
import * as capacity from './workspace/capacity.js';
import * as fresh from './workspace/fresh.js';
import { isWorkspaceEventDefinition, type WorkspaceEventDefinition } from './workspace/define.js';
import * as merge from './workspace/merge.js';
import * as provenance from './workspace/provenance.js';
import * as radar from './workspace/radar.js';
import * as review from './workspace/review.js';
import * as routines from './workspace/routines.js';
import * as sessions from './workspace/sessions.js';
import * as sync from './workspace/sync.js';
import * as tasks from './workspace/tasks.js';
import * as watchdog from './workspace/watchdog.js';

export { defineWorkspaceEvent, sessionRef, type WorkspaceEventDefinition } from './workspace/define.js';
export * from './workspace/agents.js';
export * from './workspace/approvals.js';
export * from './workspace/attempts.js';
export * from './workspace/capacity.js';
export * from './workspace/context.js';
export * from './workspace/fresh.js';
export * from './workspace/merge.js';
export * from './workspace/provenance.js';
export * from './workspace/radar.js';
export * from './workspace/review.js';
export * from './workspace/routines.js';
export * from './workspace/sessions.js';
export * from './workspace/sync.js';
export * from './workspace/tasks.js';
export * from './workspace/watchdog.js';

/** Each domain's module of workspace events. */
const DOMAINS = [
  sessions,
  radar,
  merge,
  review,
  tasks,
  agents,
  approvals,
  watchdog,
  context,
  attempts,
  routines,
  sync,
  provenance,
  fresh,
  capacity,
] as const;

/** The event definitions among a module's exports (it may export shared schemas too). */
type DefinitionsOf<M> = M extends unknown
  ? { [K in keyof M]: M[K] extends WorkspaceEventDefinition ? M[K] : never }[keyof M]
  : never;
type Definitions = DefinitionsOf<(typeof DOMAINS)[number]>;

/** Every workspace event there is, each once. */
export const WORKSPACE_EVENTS: readonly Definitions[] = DOMAINS.flatMap((domain) =>
  Object.values(domain).filter(isWorkspaceEventDefinition),
) as Definitions[];

type Envelope<D> =
  D extends WorkspaceEventDefinition<infer T, infer S>
    ? { seq: number; ts: string; type: T; data: z.output<S> }
    : never;

/** A stored workspace event: the bus's sequence number and time around a domain's data. */
export type WorkspaceEvent = Envelope<Definitions>;
export type WorkspaceEventType = WorkspaceEvent['type'];

const envelope = { seq: z.number().int().positive(), ts: z.string() };
type EnvelopeSchema<D> =
  D extends WorkspaceEventDefinition<infer T, infer S>
    ? z.ZodObject<{ seq: z.ZodNumber; ts: z.ZodString; type: z.ZodLiteral<T>; data: S }, z.core.$strip>
    : never;

function envelopeOf<D extends Definitions>(definition: D): EnvelopeSchema<D> {
  return z.object({
    ...envelope,
    type: z.literal(definition.type),
    data: definition.schema,
  }) as unknown as EnvelopeSchema<D>;
}

/** A stored workspace event, checked: one member per definition, told apart by `type`. */
export const WorkspaceEvent = z.discriminatedUnion(
  'type',
  WORKSPACE_EVENTS.map(envelopeOf) as unknown as [
    EnvelopeSchema<Definitions>,
    ...EnvelopeSchema<Definitions>[],
  ],
);
