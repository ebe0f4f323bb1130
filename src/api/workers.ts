/**
 * The machines serving this workspace (decision 127, "A shared workspace in the supervisor"): with a
 * shared store, every worker registered in it; alone, this machine from its own figures. Operations are
 * in `src/cluster`.
 */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

export const WorkerView = z.object({
  name: z.string(),
  /** Session slots the machine offers (its supervisor's maxConcurrent). */
  capacity: z.number().int(),
  /** Sessions mid-turn there at its last heartbeat. */
  running: z.number().int(),
  free: z.number().int(),
  heartbeatAt: z.string(),
  /** Seconds since that heartbeat, on the store's clock. */
  ageSeconds: z.number(),
  /** It has missed enough heartbeats in a row to count as gone. */
  stale: z.boolean(),
  version: z.string(),
  /** This machine, the one answering. */
  you: z.boolean(),
});
export type WorkerView = z.infer<typeof WorkerView>;

export const WorkersView = z.object({
  /** Whether this supervisor serves a workspace shared through a store. */
  clustered: z.boolean(),
  machine: z.string(),
  /** The store's URL without its password; null when not clustered. */
  store: z.string().nullable(),
  workers: z.array(WorkerView),
});
export type WorkersView = z.infer<typeof WorkersView>;

export const WORKERS = {
  'GET /api/workers': endpoint({
    summary: 'The machines serving this workspace: capacity, load, last heartbeat',
    response: WorkersView,
    sessions: 'read',
  }),
} satisfies Table;
