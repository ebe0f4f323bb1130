/**
 * Another machine's workspace event, as a clustered supervisor serves it (decision 135, "The workspace
 * bus across machines"): the event as that machine published it, with the machine's name. Its type and
 * data are kept as they came (a machine of a newer version may send a type this build does not know),
 * so it is not a `WorkspaceEvent`: clients that act on a domain's events (the kanban, `merge --wait`)
 * never take another machine's task 3 for their own.
 */
import { z } from 'zod';

export const RelayedWorkspaceEvent = z.object({
  seq: z.number().int().positive().describe("This machine's sequence number: one cursor with its own events"),
  ts: z.string(),
  type: z.string(),
  data: z.unknown(),
  machine: z.string().describe('The machine that published it'),
  logSeq: z.number().int().positive().describe("Its sequence number in the shared store's log"),
});
export type RelayedWorkspaceEvent = z.infer<typeof RelayedWorkspaceEvent>;
