/** What the watchdog needs of the sessions domain, as an interface (it sits beside sessions, as the radar does). */
import type { BatonEvent } from '../events/index.js';
import type { Gate } from '../scheduler/index.js';
import type { SessionWithProject } from '../store/sessions.js';

export interface WatchdogSessions {
  get(id: string): SessionWithProject | undefined;
  list(): SessionWithProject[];
  on(event: 'event', listener: (sessionId: string, event: BatonEvent) => void): unknown;
  off(event: 'event', listener: (sessionId: string, event: BatonEvent) => void): unknown;
  /** Needs input with `reason`: the running turn ends (or the session is held between turns). */
  pause(sessionId: string, reason: string): Promise<unknown>;
  stop(ref: string): Promise<unknown>;
  /**
   * Lets an idle session's agent go: its host ends the way a stop does, keeping the state (ready
   * for review), with `message` as the reason. Resolves false, doing nothing, when the session is
   * not running, no longer ready for review, or its host is answering a request.
   */
  release(sessionId: string, message: string): Promise<boolean>;
  reply(ref: string, text: string): Promise<unknown>;
  addGate(gate: Gate<SessionWithProject>): () => void;
  /** Starts what the gates now let through. */
  schedule(): Promise<void>;
}

/** What never changes about a session: enough to name it, price it and find its repository. */
export type SessionIdentity = Pick<
  SessionWithProject,
  'id' | 'name' | 'project_name' | 'project_root' | 'agent' | 'model' | 'worktree'
>;

export function sessionRef(session: Pick<SessionWithProject, 'id' | 'name' | 'project_name'>): {
  id: string;
  name: string;
  project: string;
} {
  return { id: session.id, name: session.name, project: session.project_name };
}
