/** The user's commands on a session: reply, approve or deny, interrupt, stop, done, pin, remove, respawn. */
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { doorPath } from '../mcp/index.js';
import { agentEnvironment, agentSandbox, sandboxStatus } from '../sandbox/index.js';
import { readPlan, runTeardown } from '../environments/index.js';
import { SessionPinned, SessionRemoved } from '../events/workspace.js';
import { BatonError, errorMessage, InvalidInputError, SessionStateError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import { markPoint } from '../shared/test-points.js';
import type { SessionWithProject } from '../store/sessions.js';
import { removeWorktree, type RemoveResult } from '../worktrees/index.js';
import type { PendingApprovals } from '../approvals/index.js';
import type { SessionsCore } from './core.js';
import { RESPAWNABLE_STATES } from './state.js';

const log = createLogger('commands');

/** Who sent a message: a session's agent, or (sessionId null) an MCP client outside Baton. */
export interface MessageAuthor {
  sessionId: string | null;
  name: string;
}

/** When a message reaches its session: at once, when its running turn ends, or after its user's answer. */
export type MessageDelivery = 'now' | 'after_turn' | 'after_answer';

function deliveryOf(session: SessionWithProject, running: boolean): MessageDelivery {
  if (!running || !['preparing', 'starting', 'working', 'needs_input'].includes(session.state)) return 'now';
  if (session.state !== 'needs_input') return 'after_turn';
  const reason = session.state_reason_json ?? '';
  // Interrupted: the agent waits for whoever speaks next.
  return reason.includes('"kind":"question"')
    ? 'after_answer'
    : reason.includes('"kind":"note"')
      ? 'now'
      : 'after_turn';
}

export class SessionCommands {
  /** The command in progress on each session, which the next one on that session waits for. */
  private readonly inProgress = new Map<string, Promise<unknown>>();

  constructor(
    private readonly core: SessionsCore,
    /** The approvals table's read side: which approval a session waits on. */
    private readonly approvals: PendingApprovals,
  ) {}

  /**
   * Runs `command` on the session once the commands before it on the same session have
   * finished, with the session looked up again then: two removals at once (a page and a script,
   * say) or a respawn during a removal would otherwise both work on one worktree, the second
   * finding it half gone. A session removed meanwhile is not found, as for any later command.
   */
  private async exclusive<T>(
    ref: string,
    cwd: string | undefined,
    command: (session: SessionWithProject) => Promise<T>,
  ): Promise<T> {
    const { id } = this.core.resolve(ref, cwd);
    const running = this.inProgress.get(id);
    // Race tests learn that this command waits for another of the session's.
    if (running !== undefined) markPoint('session.held-waiting');
    const before = running ?? Promise.resolve();
    const run = before.then(
      () => command(this.core.resolve(id)),
      () => command(this.core.resolve(id)),
    );
    this.inProgress.set(id, run);
    try {
      return await run;
    } finally {
      if (this.inProgress.get(id) === run) this.inProgress.delete(id);
    }
  }

  /**
   * Runs `work` on the session while no other command of its own runs (keep-fresh's rebase,
   * decision 307): a reply or message sent meanwhile waits for it, so no turn starts mid-rebase.
   */
  whileHeld<T>(sessionId: string, work: (session: SessionWithProject) => Promise<T>): Promise<T> {
    return this.exclusive(sessionId, undefined, work);
  }

  /**
   * As `whileHeld`, and the session's host hands its agent nothing meanwhile (decision 456): a reply
   * it queued while a turn ran, due when the turn ends, waits too, where a reply sent now waits at
   * the hold. `work` runs only when the host says the agent is between turns; when a turn is under
   * way (one the store may not have heard of yet: a queued reply just handed over) the answer is
   * undefined and nothing is done. A session with no host running has nothing to hand over.
   */
  whileQuiet<T>(
    sessionId: string,
    work: (session: SessionWithProject) => Promise<T>,
  ): Promise<T | undefined> {
    return this.exclusive(sessionId, undefined, async (session) => {
      if (!this.core.isRunning(session)) return work(session);
      let hold: { letGo(): void };
      try {
        hold = await this.core.hosts.hold(session.id);
      } catch (error) {
        // At work, or its host gone since: either way the worktree is not Baton's to change now.
        if (error instanceof BatonError && error.code === 'conflict') return undefined;
        throw error;
      }
      try {
        return await work(this.core.resolve(session.id));
      } finally {
        await this.core.hosts.send(session.id, { op: 'resume' }).catch((error: unknown) =>
          // A host gone meanwhile holds nothing; one that lives lets go when the hold's connection closes.
          log.warn('could not let a held session host go', {
            session: session.id,
            error: errorMessage(error),
          }),
        );
        hold.letGo();
      }
    });
  }

  /**
   * Sends a reply. A session that is no longer running (stopped, failed, or finished and its
   * host gone) is respawned first, resuming its conversation, and the reply is its next turn.
   */
  async reply(ref: string, text: string, cwd?: string, clientId?: string): Promise<SessionWithProject> {
    if (text.trim() === '') throw new InvalidInputError('The reply is empty.');
    return this.exclusive(ref, cwd, (session) => this.replyNow(session, text, clientId));
  }

  private async replyNow(
    session: SessionWithProject,
    text: string,
    clientId: string | undefined,
    from?: MessageAuthor,
  ): Promise<SessionWithProject> {
    if (!this.core.isRunning(session) && RESPAWNABLE_STATES.includes(session.state))
      await this.resumeToReply(session);
    else this.requireRunning(session, from === undefined ? 'reply to' : 'send a message to');
    await this.core.hosts.send(session.id, {
      op: 'reply',
      text,
      ...(clientId === undefined ? {} : { clientId }),
      ...(from === undefined ? {} : { from }),
    });
    return this.core.settle(session.id);
  }

  /**
   * A message from another session's agent (or an MCP client outside Baton), delivered as the
   * target's next turn: now when it is idle, else when its turn ends — never as the answer to a
   * question it asked its user (decision 96).
   */
  async message(
    ref: string,
    text: string,
    from: MessageAuthor,
    cwd?: string,
  ): Promise<{ session: SessionWithProject; delivery: MessageDelivery }> {
    if (text.trim() === '') throw new InvalidInputError('The message is empty.');
    return this.exclusive(ref, cwd, async (target) => {
      if (target.id === from.sessionId)
        throw new InvalidInputError(
          `${target.name} is the sending session itself; a message goes to another session.`,
        );
      const delivery = deliveryOf(target, this.core.isRunning(target));
      return { session: await this.replyNow(target, text, undefined, from), delivery };
    });
  }

  /** The session's agent asks its user (MCP `ask_user`): its host records the question, and the session needs input. */
  async ask(sessionId: string, text: string): Promise<SessionWithProject> {
    if (text.trim() === '') throw new InvalidInputError('The question is empty.');
    const session = this.core.resolve(sessionId);
    this.requireRunning(session, 'ask the user for');
    await this.core.hosts.send(session.id, { op: 'ask', text });
    return this.core.settle(session.id);
  }

  async resolveApproval(
    ref: string,
    decision: 'allow' | 'deny',
    reason?: string,
    requestId?: string,
    cwd?: string,
  ): Promise<SessionWithProject> {
    const session = this.core.resolve(ref, cwd);
    if (this.approvals.waiting(session) === undefined) {
      const hint =
        session.state === 'needs_input'
          ? `; it is waiting for an answer: baton reply ${session.name} "…"`
          : ` (it is ${session.state.replace(/_/g, ' ')})`;
      throw new SessionStateError(`Session ${session.name} is not waiting for an approval${hint}.`);
    }
    this.requireRunning(session, decision === 'allow' ? 'approve' : 'deny');
    await this.core.hosts.send(session.id, {
      op: 'approval',
      decision,
      ...(reason === undefined ? {} : { reason }),
      ...(requestId === undefined ? {} : { requestId }),
    });
    return this.core.settle(session.id);
  }

  async interrupt(ref: string, cwd?: string): Promise<SessionWithProject> {
    const session = this.core.resolve(ref, cwd);
    this.requireRunning(session, 'interrupt');
    await this.core.hosts.send(session.id, { op: 'interrupt' });
    return this.core.settle(session.id);
  }

  /**
   * The watchdog's pause: ends the running turn (or holds a session between turns) in needs input
   * with `reason`, so a reply resumes it. A session whose host was let go is held by the record alone.
   */
  async pause(sessionId: string, reason: string): Promise<SessionWithProject> {
    const session = this.core.mustGet(sessionId);
    if (this.core.isRunning(session)) await this.core.hosts.send(session.id, { op: 'interrupt', reason });
    else if (session.state === 'ready_for_review')
      this.core.ingestor.record(session.id, { kind: 'paused', message: reason });
    return this.core.settle(session.id);
  }

  stop(ref: string, cwd?: string): Promise<SessionWithProject> {
    return this.exclusive(ref, cwd, (session) => this.stopNow(session));
  }

  /**
   * Stops a session for `reason` rather than at the user's word (its machine lost the session's
   * placement to another): the stopped state's note says why. A session with no host resting
   * between turns is held stopped by the record, so a reply does not resume it here; one that
   * already ended (failed, stopped, completed) is left as it is. Its worktree is kept.
   */
  halt(sessionId: string, reason: string): Promise<SessionWithProject> {
    return this.exclusive(sessionId, undefined, async (session) => {
      if (this.core.isRunning(session)) await this.core.hosts.stop(session, reason);
      else if (['queued', 'ready_for_review', 'needs_input'].includes(session.state))
        this.core.ingestor.record(session.id, { kind: 'stopped_by_user', message: reason });
      return this.core.mustGet(session.id);
    });
  }

  /**
   * The watchdog's idle rule: the host of a session resting in ready for review lets its agent
   * go, keeping the state. In turn with the session's other commands, so a reply sent meanwhile
   * either comes first (and the host refuses: in use) or finds the host gone and resumes it.
   */
  release(sessionId: string, message: string): Promise<boolean> {
    return this.exclusive(sessionId, undefined, (session) =>
      session.state === 'ready_for_review' && this.core.isRunning(session)
        ? this.core.hosts.release(session, message)
        : Promise.resolve(false),
    );
  }

  private async stopNow(session: SessionWithProject): Promise<SessionWithProject> {
    // A host being started counts as running (its pid is recorded at spawn): it must do the
    // stopping, or two writers would share the log and the host would never learn of it.
    if (session.state === 'queued' && !this.core.isRunning(session)) {
      this.core.ingestor.record(session.id, { kind: 'stopped_by_user' });
      return this.core.mustGet(session.id);
    }
    if (!this.core.isRunning(session))
      throw new SessionStateError(`Session ${session.name} is not running (it is ${session.state}).`);
    await this.core.hosts.stop(session);
    return this.core.mustGet(session.id);
  }

  done(ref: string, cwd?: string): Promise<SessionWithProject> {
    return this.exclusive(ref, cwd, (session) => this.doneNow(session));
  }

  private async doneNow(session: SessionWithProject): Promise<SessionWithProject> {
    if (session.state === 'completed') return session;
    if (this.core.isRunning(session)) {
      await this.core.hosts.send(session.id, { op: 'complete' });
      await this.core.hosts.gone(session.id);
      this.core.ingestor.ingest(session.id);
    } else {
      this.core.ingestor.record(
        session.id,
        { kind: 'marked_done' },
        { after: [{ type: 'session.ended', reason: 'completed' }] },
      );
    }
    await this.core.scheduler.run();
    return this.core.mustGet(session.id);
  }

  setPinned(ref: string, pinned: boolean, cwd?: string): SessionWithProject {
    const session = this.core.resolve(ref, cwd);
    this.core.store.setPinned(session.id, pinned);
    this.core.bus.publish(SessionPinned, {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      pinned,
    });
    this.core.ingestor.emit('session', session.id);
    return this.core.mustGet(session.id);
  }

  remove(
    ref: string,
    cwd?: string,
  ): Promise<{ session: SessionWithProject; result: RemoveResult & { teardownFailures?: string[] } }> {
    return this.exclusive(ref, cwd, (session) => this.removeNow(session));
  }

  private async removeNow(
    session: SessionWithProject,
  ): Promise<{ session: SessionWithProject; result: RemoveResult & { teardownFailures?: string[] } }> {
    if (this.core.isRunning(session)) await this.core.hosts.stop(session);
    const plan = readPlan(sessionPaths(this.core.home, session.id).dir, session.worktree);
    const teardown = await this.teardown(session);
    // In place, the worktree is the user's main checkout: it stays exactly as it is.
    const inPlace = plan.inPlace || session.worktree === session.project_root;
    const result: RemoveResult = await this.core.removalGuard(session, async () =>
      inPlace
        ? { branchDeleted: false }
        : removeWorktree({
            repo: session.project_root,
            path: session.worktree,
            branch: session.branch,
            baseCommit: session.base_commit,
            snapshotName: session.name,
            keepBranch: plan.keepBranch,
            keepFilesIn: join(sessionPaths(this.core.home, session.id).dir, 'worktree-files'),
          }),
    );
    this.core.store.markRemoved(session.id, result.snapshotRef ?? null);
    this.core.ports.release(session.id);
    this.core.hosts.unwatch(session.id);
    this.core.bus.publish(SessionRemoved, {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      snapshotRef: result.snapshotRef ?? null,
      branchDeleted: result.branchDeleted,
    });
    this.core.ingestor.emit('session', session.id);
    await this.core.scheduler.run();
    return {
      session: this.core.mustGet(session.id),
      result: { ...result, ...(teardown.length === 0 ? {} : { teardownFailures: teardown }) },
    };
  }

  /**
   * The repository's teardown commands, in the worktree while it still exists (decision 59, "Setup runs
   * in the session's host").
   */
  private async teardown(session: SessionWithProject): Promise<string[]> {
    const dir = sessionPaths(this.core.home, session.id).dir;
    const plan = readPlan(dir, session.worktree);
    if (plan.teardown.length === 0 || plan.inPlace || !existsSync(session.worktree)) return [];
    const env = this.core.hosts.sessionEnv(session);
    // In the session's sandbox, as its agent ran: the scripts it runs may be the agent's work.
    const paths = sessionPaths(this.core.home, session.id);
    mkdirSync(paths.agentState, { recursive: true });
    const sandbox = agentSandbox(
      {
        home: this.core.home,
        worktree: session.worktree,
        stateDir: paths.agentState,
        door: doorPath(this.core.home, session.id),
        user: { home: env.HOME ?? homedir(), env },
        repository: session.project_root,
      },
      sandboxStatus(env),
    );
    const { failures } = await runTeardown(
      plan,
      session.worktree,
      sandbox.kind === 'none' ? env : agentEnvironment(env),
      join(dir, 'teardown.log'),
      sandbox,
    );
    return failures;
  }

  respawn(ref: string, cwd?: string): Promise<SessionWithProject> {
    return this.exclusive(ref, cwd, (session) => this.respawnNow(session));
  }

  private async respawnNow(session: SessionWithProject): Promise<SessionWithProject> {
    if (!RESPAWNABLE_STATES.includes(session.state) && this.core.isRunning(session)) {
      throw new SessionStateError(
        `Session ${session.name} is ${session.state.replace(/_/g, ' ')}; respawn restarts a session that failed or was stopped (or whose agent was let go while ready for review).`,
      );
    }
    if (session.state === 'completed')
      throw new SessionStateError(
        `Session ${session.name} is completed (marked done); to go on with the work, dispatch a new session.`,
      );
    if (session.state === 'ready_for_review' && this.core.isRunning(session)) {
      throw new SessionStateError(
        `Session ${session.name} is ready for review and its agent is still up: there is nothing to respawn. Send it more work with: baton reply ${session.name} "…"`,
      );
    }
    if (!existsSync(session.worktree))
      throw new SessionStateError(
        `The worktree of ${session.name} is gone (${session.worktree}); it cannot be respawned.`,
      );
    // Another domain may refuse (the cluster: another machine runs this session now).
    await this.core.resumeGuard(session);
    if (this.core.isRunning(session)) await this.core.hosts.stop(session);
    else this.core.hosts.settleLost(session);
    this.core.ingestor.record(session.id, { kind: 'queued', note: 'respawn requested' });
    await this.core.scheduler.run();
    return this.core.mustGet(session.id);
  }

  async respawnAll(projectRoot?: string): Promise<SessionWithProject[]> {
    const targets = this.core.store
      .listLive()
      .filter(
        (s) =>
          (s.state === 'failed' || s.state === 'stopped') &&
          (projectRoot === undefined || s.project_root === projectRoot),
      );
    const respawned: SessionWithProject[] = [];
    for (const session of targets) respawned.push(await this.respawn(session.id));
    return respawned;
  }

  /** Respawns a session so it can take a reply, or says why it cannot, before changing anything. */
  private async resumeToReply(session: SessionWithProject): Promise<void> {
    const { core } = this;
    // Queued sessions are ahead of this one for the next free slot.
    if (core.scheduler.used() + core.inLine().length >= core.maxConcurrent) {
      throw new SessionStateError(
        `Cannot reply to ${session.name}: it is ${session.state}, and resuming it would exceed the limit of ${core.maxConcurrent} running sessions. Stop one, or raise BATON_MAX_CONCURRENT, then reply again.`,
      );
    }
    await this.respawnNow(session);
    const resumed = core.mustGet(session.id);
    if (resumed.state === 'queued') {
      throw new SessionStateError(
        `Cannot reply to ${session.name} yet: it was respawned but another session took the free slot first; it resumes when a slot frees, then reply again.`,
      );
    }
    if (!core.isRunning(resumed)) {
      throw new SessionStateError(
        `Cannot reply to ${session.name}: it was respawned to take the reply but did not start (it is ${resumed.state}); its transcript says why.`,
      );
    }
  }

  private requireRunning(session: SessionWithProject, action: string): void {
    if (!this.core.isRunning(session)) {
      const hint =
        session.state === 'queued'
          ? 'it is queued and has not started yet'
          : session.state === 'completed'
            ? 'it is completed (marked done); to go on with the work, dispatch a new session'
            : `it is ${session.state.replace(/_/g, ' ')}; \`baton respawn ${session.name}\` restarts it`;
      throw new SessionStateError(`Cannot ${action} ${session.name}: ${hint}.`);
    }
  }
}
