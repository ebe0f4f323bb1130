/** What the session commands share: the store, the log writer, the hosts, the scheduler and the bus. */
import type { WorkspaceBus } from '../bus/index.js';
import type { Scheduler } from '../scheduler/index.js';
import { AmbiguousSessionError, BatonError, SessionNotFoundError } from '../shared/errors.js';
import type { PendingDispatchStore } from '../store/pending-dispatches.js';
import type { PortLeaseStore } from '../store/port-leases.js';
import type { SessionStore, SessionWithProject } from '../store/sessions.js';
import type { HostSupervisor } from './hosts.js';
import type { Ingestor } from './ingest.js';
import { resolveSessionRef } from './resolve.js';

/** Another domain's hold on a session's worktree removal: it runs `remove` when it is ready (sync: once a snapshot being taken is taken). */
export type RemovalGuard = <T>(session: SessionWithProject, remove: () => Promise<T>) => Promise<T>;

/** Another domain's say on a session starting again here (a respawn, a reply that resumes it): it throws to refuse. */
export type ResumeGuard = (session: SessionWithProject) => Promise<void>;

export class SessionsCore {
  removalGuard: RemovalGuard = (_session, remove) => remove();
  resumeGuard: ResumeGuard = async () => {};

  constructor(
    readonly home: string,
    readonly store: SessionStore,
    readonly ingestor: Ingestor,
    readonly hosts: HostSupervisor,
    readonly scheduler: Scheduler<SessionWithProject>,
    readonly bus: WorkspaceBus,
    readonly maxConcurrent: number,
    readonly pending: PendingDispatchStore,
    readonly ports: PortLeaseStore,
  ) {}

  resolve(ref: string, cwd?: string): SessionWithProject {
    return resolveSessionRef(this.store.listLive(), ref, cwd);
  }

  /**
   * A live session, else a removed one (decision 168: landing removes the worktree, never the
   * record of the work). Among removed sessions of one name, the newest.
   */
  resolveRecord(ref: string, cwd?: string): SessionWithProject {
    try {
      return this.resolve(ref, cwd);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
    }
    const removed = this.store.listRemoved();
    try {
      return resolveSessionRef(removed, ref, cwd);
    } catch (error) {
      if (!(error instanceof AmbiguousSessionError)) throw error;
      const newest = [...new Map(removed.reverse().map((s) => [`${s.project_id}/${s.name}`, s])).values()];
      return resolveSessionRef(newest, ref, cwd);
    }
  }

  mustGet(id: string): SessionWithProject {
    const session = this.store.get(id);
    if (session === undefined) throw new BatonError('internal', `session ${id} vanished`);
    return session;
  }

  /** After a command, take in what the host wrote in answer. */
  settle(sessionId: string): SessionWithProject {
    // The command is done (the host has it); on a full disk the view catches up later.
    this.ingestor.ingestSoon(sessionId);
    return this.mustGet(sessionId);
  }

  isRunning(session: SessionWithProject): boolean {
    return this.hosts.isRunning(session);
  }

  queued(): SessionWithProject[] {
    return this.store.listLive().filter((s) => s.state === 'queued');
  }

  /**
   * The sessions in line for a slot: queued rows whose host is not already being started. A
   * dispatch's row says queued until its host takes it (decision 310); counting those as in line
   * too put a lone queued session at "#3" behind two that already had their slots (decision 432).
   */
  inLine(): SessionWithProject[] {
    return this.queued().filter((s) => !this.scheduler.isStarting(s.id));
  }
}
