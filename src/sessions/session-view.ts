/**
 * A session as the API shows it: the row's own view (views.ts) with what only the running
 * supervisor knows — its place in line or the gate holding it back, a dispatch's host already
 * starting, its leased ports — and what other domains add through a provider the server sets: its
 * cost as the usage ledger prices it, what Baton checked of its work (src/provenance), what
 * keep-fresh last did (src/fresh).
 */
import type { SessionView } from '../api/index.js';
import type { EvidenceMark } from '../api/provenance.js';
import type { Scheduler } from '../scheduler/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { SessionsCore } from './core.js';
import { toView } from './views.js';

export class SessionViews {
  /** A session's spend as the usage ledger prices it; unset (tests without a ledger): the row's own sum. */
  costs: ((sessionId: string) => number) | undefined;
  evidence: ((sessionId: string, name: string) => EvidenceMark | undefined) | undefined;
  freshness: ((sessionId: string) => SessionView['fresh']) | undefined;

  constructor(
    private readonly core: SessionsCore,
    private readonly scheduler: Scheduler<SessionWithProject>,
    private readonly isRunning: (session: SessionWithProject) => boolean,
  ) {}

  /** A queued session's view says why it is held back (a task's dependency, a budget), as the last scheduling pass said. */
  view(session: SessionWithProject): SessionView {
    const queued = session.state === 'queued';
    const view = toView(
      session,
      this.isRunning(session),
      queued ? this.core.inLine().findIndex((s) => s.id === session.id) + 1 : null,
    );
    const heldBy = queued ? this.scheduler.held().find((h) => h.id === session.id)?.reason : undefined;
    const ports = this.core.ports.of(session.id).map((p) => ({ name: p.name, port: p.port }));
    const evidence = this.evidence?.(session.id, session.name);
    const fresh = this.freshness?.(session.id);
    // A dispatch answers once its worktree and row exist (decision 310): its host, spawned or the
    // spare, is starting and records `starting` itself when it takes the session. Until then the
    // row still says queued, which it no longer is: no gate holds it and it has no place in line.
    const starting = queued && this.scheduler.isStarting(session.id);
    return {
      ...view,
      ...(starting ? { state: 'starting' as const, queuePosition: null } : {}),
      ...(fresh === undefined ? {} : { fresh }),
      costUsd: this.costOf(session),
      ...(heldBy === undefined ? {} : { heldBy }),
      ...(ports.length === 0 ? {} : { ports }),
      ...(evidence === undefined ? {} : { evidence }),
    };
  }

  costOf(session: SessionWithProject): number {
    return this.costs?.(session.id) ?? session.cost_usd;
  }
}
