/** What the attempts domain needs of the sessions domain (the session manager has all of it). */
import type { z } from 'zod';
import type { DispatchRequest } from '../api/index.js';
import type { BatonEvent } from '../events/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { RemoveResult } from '../worktrees/index.js';

export interface AttemptSessions {
  dispatch(request: z.output<typeof DispatchRequest>): Promise<SessionWithProject>;
  /** A dispatch that records the session's task (src/tasks), when the tasks domain is there. */
  dispatchForTask?(request: z.output<typeof DispatchRequest>, taskId: number): Promise<SessionWithProject>;
  resolve(ref: string, cwd?: string): SessionWithProject;
  get(id: string): SessionWithProject | undefined;
  list(): SessionWithProject[];
  remove(ref: string): Promise<{ session: SessionWithProject; result: RemoveResult }>;
  latestEvents(sessionId: string, types: string[], limit: number): BatonEvent[];
}

/** The agent's last message, newest first among its recent events. */
export function finalMessage(sessions: AttemptSessions, sessionId: string): string | null {
  for (const event of sessions.latestEvents(sessionId, ['message.added'], 20)) {
    if (event.type === 'message.added' && event.role === 'assistant') return event.text;
  }
  return null;
}
