/** How a domain defines a workspace event: a dotted past-tense name and a zod schema for its data. */
import { z } from 'zod';

export interface WorkspaceEventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> {
  readonly type: T;
  readonly schema: S;
}

export function defineWorkspaceEvent<T extends string, S extends z.ZodType>(
  type: T,
  schema: S,
): WorkspaceEventDefinition<T, S> {
  return { type, schema };
}

/** The session an event is about. */
export const sessionRef = { sessionId: z.string(), name: z.string(), project: z.string() };
