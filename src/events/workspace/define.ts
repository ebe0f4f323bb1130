/** How a domain defines a workspace event: a dotted past-tense name and a zod schema for its data. */
import { z } from 'zod';

export interface WorkspaceEventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> {
  readonly type: T;
  readonly schema: S;
  /** Marks a definition among a module's other exports, so the union is derived from the modules. */
  readonly workspaceEvent: true;
}

export function defineWorkspaceEvent<T extends string, S extends z.ZodType>(
  type: T,
  schema: S,
): WorkspaceEventDefinition<T, S> {
  return { type, schema, workspaceEvent: true };
}

export function isWorkspaceEventDefinition(value: unknown): value is WorkspaceEventDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { workspaceEvent?: unknown }).workspaceEvent === true
  );
}

/** The session an event is about. */
export const sessionRef = { sessionId: z.string(), name: z.string(), project: z.string() };
