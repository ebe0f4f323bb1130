/**
 * The session host: one small process per running session. It owns the agent, writes the
 * session's events to disk itself and derives the session's state, so the session goes on —
 * and nothing is lost — while the supervisor is down or restarting. The supervisor talks to it
 * over a Unix socket and re-attaches after a restart.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { BatonEvent, EventBody } from '../events/index.js';
import { loadAdapter, type AgentEvent, type AgentRun } from '../agents/index.js';
import { needsPreparing, readPlan, type EnvironmentPlan } from '../environments/index.js';
import { BatonError, errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { stepTimer } from '../shared/steps.js';
import { pausePoint } from '../shared/test-points.js';
import { homePaths, sessionPaths, type SessionPaths } from '../shared/paths.js';
import { readUserConfig } from '../shared/config.js';
import { isBuiltinAgent } from '../events/vocabulary.js';
import { ensureSocketFolder } from '../shared/private-folder.js';
import { EventLogWriter, readLog } from './event-log.js';
import { followSequence } from './sequence.js';
import { revokeCredential } from '../mcp/index.js';
import {
  agentStartOptions,
  checkedAgentEvent,
  mcpTransport,
  sessionSandbox,
  withoutCredential,
  sessionStarted,
} from './host-agent.js';
import { sandboxStatus } from '../sandbox/index.js';
import { anchorWorktree } from '../worktrees/index.js';
import { AgentQuestion } from './host-ask.js';
import { HostMemory } from './host-memory.js';
import { claimSession, releaseClaim } from './host-claim.js';
import { ControlSocket, type Asker } from './host-control.js';
import { DEFAULT_ORPHAN_MS, OrphanWatch } from './host-orphan.js';
import { prepareSession } from './host-prepare.js';
import type { HostInfo, HostRequest, HostSpec } from './spec.js';
import { messagePrompt, ReplyQueue } from './host-replies.js';
import type { Trigger } from './state.js';

const log = createLogger('host');

export class SessionHost {
  private readonly paths: SessionPaths;
  private writer!: EventLogWriter;
  private control: ControlSocket | undefined;
  private run: AgentRun | undefined;
  /** The session's state, the agent's last words and pending approvals, from the events written. */
  private readonly memory = new HostMemory();
  /** Its start's steps, reported to the supervisor with ready (decision 221). */
  readonly steps = stepTimer();
  private readonly replies = new ReplyQueue({
    status: () => this.memory.machine.status,
    deliver: (text, answering) => this.deliverReply(text, answering),
    // The session would say "working" with no turn running: it fails, truthfully, and a reply or respawn resumes it.
    failed: (_text, error) =>
      this.onAgentExited(`the reply could not be handed to the agent: ${errorMessage(error)}`),
  });
  private readonly question = new AgentQuestion((body) => this.record(body));
  private stopRequested = false;
  /** Why the session was stopped, when it was not the user. */
  private stopNote: string | undefined;
  private ending: Promise<void> | undefined;
  private readonly exitCallbacks: ((code: number) => void)[] = [];
  private plan!: EnvironmentPlan;
  /** The worktree was made ready by an earlier host (its log holds a successful `setup.finished`). */
  private prepared = false;
  private readonly preparing = new AbortController();
  /** Resolves with the agent's run once it has started. */
  private started: (run: AgentRun) => void = () => undefined;
  private readonly agentRunning = new Promise<AgentRun>((resolve) => (this.started = resolve));
  /** The allow rule (its id) that answers a call in this session's repository; unset for a session dispatched without its project recorded. */
  private allowRuleFor:
    | ((call: {
        tool: string;
        kind?: string;
        input: string;
        gate?: string | undefined;
      }) => number | undefined)
    | undefined;
  /** Ends the host, once idle, when no supervisor has watched it for a while (host-orphan.ts). */
  private orphan: OrphanWatch | undefined;
  /** The session's credential, in the agent's environment for its MCP client: kept out of every event recorded. */
  private credential: string | undefined;
  /** The running preparation, which a stop waits for: its commands are ended before the session is. */
  private preparation: Promise<unknown> | undefined;

  /** `env` is the session's environment, handed to the agent as is (see environment.ts). */
  constructor(
    private readonly spec: HostSpec,
    private readonly env: Record<string, string>,
  ) {
    this.paths = sessionPaths(spec.home, spec.sessionId);
    // The checkpoints this host takes run git in the worktree: its git folders come from the
    // recorded repository, not the worktree's `.git` file the agent can rewrite (decision 201).
    if (spec.repository !== undefined) anchorWorktree(spec.cwd, spec.repository);
  }

  /** Starts the agent; resolves once the control socket listens and the agent has started. */
  async start(): Promise<void> {
    mkdirSync(this.paths.dir, { recursive: true });
    claimSession(this.paths.dir);
    this.restoreFromLog();
    this.writer = new EventLogWriter(this.paths.events, this.lastSeqFromLog, {
      onBlocked: (error, held) =>
        log.warn('the disk is full: events are held in order until it has room', {
          session: this.spec.sessionId,
          error,
          held,
        }),
      onUnblocked: (written) =>
        log.info('the disk has room again: held events written', { session: this.spec.sessionId, written }),
    });
    const info: HostInfo = {
      pid: process.pid,
      sessionId: this.spec.sessionId,
      startedAt: new Date().toISOString(),
      socket: this.paths.socket,
    };
    writeFileSync(this.paths.hostJson, JSON.stringify(info));
    this.steps.mark('open');
    await this.listen();
    this.steps.mark('listen');
    this.plan = readPlan(this.paths.dir, this.spec.cwd);
    if (needsPreparing(this.plan) && !this.prepared) {
      // Ready is reported now; setup may take minutes and must not hold the supervisor's launch.
      this.change({ kind: 'preparing' });
      void this.prepareThenStart();
      return;
    }
    await this.startAgent();
  }

  private async prepareThenStart(): Promise<void> {
    const { plan, env, paths, preparing } = this;
    const running = prepareSession({
      plan,
      worktree: this.spec.cwd,
      sessionDir: paths.dir,
      env,
      record: (body) => this.record(body),
      signal: preparing.signal,
    });
    this.preparation = running;
    const result = await running;
    this.preparation = undefined;
    if (this.ending !== undefined) return;
    if (result.ok) return this.startAgent();
    this.record({ type: 'error.raised', message: result.message, fatal: true });
    await this.end('failed', result.message);
  }

  private async startAgent(): Promise<void> {
    this.change({ kind: 'host_started' });
    // Made here, outside the sandbox: a folder the agent made inside would land on its tmpfs and vanish.
    mkdirSync(this.paths.agentState, { recursive: true });
    const status = sandboxStatus(this.env);
    const sandbox = sessionSandbox(this.spec, this.paths.agentState, status, {
      home: this.env.HOME ?? homedir(),
      env: this.env,
    });
    this.record(sessionStarted(this.spec, process.pid, status.kind));
    if (status.kind === 'none')
      log.warn('the agent runs without a sandbox', { session: this.spec.sessionId, why: status.detail });
    try {
      // A user's ACP entry is read from config.json at each start of its agent (decision 280):
      // a resume runs the command as the entry says now.
      const adapter = await loadAdapter(
        this.spec.agent,
        isBuiltinAgent(this.spec.agent) ? undefined : readUserConfig(homePaths(this.spec.home).config).agents,
      );
      // Loaded here, not at start: the shell parser costs ~80 ms, which a spare host pays while it waits.
      const { readSessionPolicy, realDisk, sessionGate } = await import('../policy/index.js');
      const { allowRuleFor } = await import('../approvals/index.js');
      const { checkpointing } = await import('./checkpoints.js');
      this.steps.mark('load');
      const policy = readSessionPolicy(this.paths.dir, this.spec.cwd);
      const userHome = this.env.HOME ?? homedir();
      const gate = checkpointing(
        sessionGate(policy, userHome, this.spec.home),
        {
          id: this.spec.sessionId,
          worktree: this.spec.cwd,
          home: userHome,
          // Scripts the agent runs are read for discards, as the gate reads them (decision 177).
          disk: realDisk({ worktree: policy.worktree, state: this.spec.home, baseCommit: policy.baseCommit }),
        },
        (body) => this.record(body),
      );
      const project = policy.project;
      if (project !== undefined)
        this.allowRuleFor = (call) =>
          allowRuleFor(this.spec.home, project, call, this.spec.cwd, userHome)?.id;
      const options = agentStartOptions(
        this.spec,
        this.paths.agentState,
        this.env,
        this.plan,
        sandbox,
        mcpTransport(this.env),
      );
      this.credential = options.batonMcp?.http?.token;
      this.run = await adapter.start({ ...options, gate }, (event) => this.onAgentEvent(event));
      this.steps.mark('agent');
      this.started(this.run);
    } catch (error) {
      await this.end('failed', `the agent could not start: ${errorMessage(error)}`);
      return;
    }
    this.run.exited.then(
      (result) => this.onAgentExited(result.error),
      (error: unknown) => this.onAgentExited(errorMessage(error)),
    );
  }

  onExit(callback: (code: number) => void): void {
    this.exitCallbacks.push(callback);
  }
  /** SIGTERM and friends: stop like `baton stop` would. */
  async terminate(): Promise<void> {
    await this.stop();
  }
  private lastSeqFromLog = 0;

  /** Picks up where an earlier host of this session left off: sequence, state, pending approvals. */
  private restoreFromLog(): void {
    // The events of the log's sequence only: a repeated or out-of-place line neither moves the
    // numbering on nor counts as something that happened (decision 167).
    const followed = followSequence(readLog(this.paths.events).events, 0);
    this.lastSeqFromLog = followed.lastSeq;
    for (const event of followed.taken) {
      this.memory.track(event);
      if (event.type === 'setup.finished') this.prepared = event.ok;
      // Replies an earlier host took stay taken: a client's retry must not apply them again.
      if (event.type === 'message.added' && event.role === 'user' && event.clientId !== undefined)
        this.replies.remember(event.clientId);
    }
    // Approvals pending in a dead host died with its agent.
    this.memory.pendingApprovals = [];
    // A log with no state yet: the supervisor was killed between recording the session and
    // writing its first event. The session is queued (that is how it was recorded).
    if (this.memory.machine.status === undefined) this.memory.machine.restore({ state: 'queued' });
  }

  private onAgentEvent(raw: AgentEvent): void {
    if (raw.type === 'turn.completed') this.question.drop();
    const body = withoutCredential(checkedAgentEvent(raw), this.credential);
    if (body.type === 'approval.requested' && this.answeredByRule(body)) return;
    this.record(body);
  }

  /**
   * An approval an allow rule covers, answered here before anyone is asked (decision 152): the
   * request and its answer are recorded, but neither changes the session's state, so it never
   * shows as needing the user and nothing notifies them.
   */
  private answeredByRule(request: Extract<EventBody, { type: 'approval.requested' }>): boolean {
    const rule = this.ending !== undefined ? undefined : this.allowRuleFor?.(request);
    if (rule === undefined) return false;
    const reason = `approved by allow rule ${rule}`;
    this.record(request, false);
    this.record(
      { type: 'approval.resolved', requestId: request.requestId, decision: 'allow', reason, allowRule: rule },
      false,
    );
    // Handed back once the adapter has finished raising it (an agent may ask while it is still starting).
    void this.agentRunning.then((run) =>
      run.resolveApproval(request.requestId, { decision: 'allow', reason }).catch((error: unknown) =>
        log.warn('an allowed call could not be handed back to the agent', {
          session: this.spec.sessionId,
          error: errorMessage(error),
        }),
      ),
    );
    return true;
  }

  /** Writes one event and, when it changes the session's state, the state change after it. */
  private record(body: EventBody, derive = true): BatonEvent | undefined {
    if (
      this.ending !== undefined &&
      body.type !== 'session.ended' &&
      body.type !== 'state.changed' &&
      body.type !== 'turn.completed'
    ) {
      // After stop/complete began, late agent chatter is still kept, but cannot change state.
      derive = false;
    }
    let event: BatonEvent;
    try {
      event = this.writer.append(body);
    } catch (error) {
      log.error('could not write event', { session: this.spec.sessionId, error: errorMessage(error) });
      return undefined;
    }
    this.memory.track(event);
    if (derive)
      this.change({
        kind: 'event',
        event: body,
        stopRequested: this.stopRequested,
        stopNote: this.stopNote,
        lastAssistantText: this.memory.lastAssistantText,
        interruptNote: this.memory.interruptNote,
      });
    return event;
  }

  /** Runs a trigger through the state machine and records the change it makes, if any. */
  private change(trigger: Trigger): void {
    const changed = this.memory.machine.apply(trigger);
    if (changed === undefined) return;
    this.writer.append(changed);
    this.replies.stateChanged();
    this.orphan?.stateChanged();
  }

  private get state(): string | undefined {
    return this.memory.machine.status?.state;
  }

  private async handle(request: HostRequest, asker: Asker): Promise<void> {
    const run = this.run;
    switch (request.op) {
      case 'ping':
        return;
      case 'reply': {
        if (run === undefined || this.ending !== undefined)
          throw new BatonError('conflict', 'The session is not accepting replies right now.');
        // Answered as soon as it is recorded: the agent gets it when it can take it (host-replies.ts).
        if (this.replies.isRetry(request.clientId)) return;
        const { text, clientId, from } = request;
        this.record({
          type: 'message.added',
          role: 'user',
          text,
          ...(clientId === undefined ? {} : { clientId }),
          ...(from === undefined ? {} : { from }),
        });
        this.replies.accept(
          from === undefined ? text : messagePrompt(from, text),
          clientId,
          from !== undefined,
        );
        return;
      }
      case 'ask':
        if (run === undefined || this.ending !== undefined)
          throw new BatonError('conflict', 'The session is ending; it cannot ask anything now.');
        this.question.ask(request.text, this.state);
        return;
      case 'approval': {
        if (run === undefined) throw new BatonError('conflict', 'The session has no running agent.');
        const requestId =
          request.requestId ?? this.memory.pendingApprovals[this.memory.pendingApprovals.length - 1];
        if (requestId === undefined || !this.memory.pendingApprovals.includes(requestId)) {
          throw new BatonError(
            'conflict',
            'The session has no pending approval' +
              (request.requestId ? ` with id ${request.requestId}` : '') +
              '.',
          );
        }
        this.record({
          type: 'approval.resolved',
          requestId,
          decision: request.decision,
          ...(request.reason === undefined ? {} : { reason: request.reason }),
        });
        await run.resolveApproval(requestId, { decision: request.decision, reason: request.reason });
        return;
      }
      case 'interrupt':
        this.replies.clear();
        // A pause with a reason (the watchdog's) between turns has no turn to end: the pause alone holds the session.
        if (request.reason !== undefined && this.state === 'ready_for_review')
          return this.change({ kind: 'paused', message: request.reason });
        this.memory.interruptNote = request.reason;
        await run?.interrupt();
        return;
      case 'stop':
        await this.stop(request.reason);
        return;
      case 'complete':
        await this.end('completed');
        return;
      case 'hold':
        // Checked here, in the one process that starts turns: the supervisor's view may not yet have
        // the turn a queued reply started (decision 456).
        if (run === undefined || this.ending !== undefined || !this.replies.hold(asker))
          throw new BatonError('conflict', "The session is at work: its worktree is its agent's.");
        return;
      case 'resume':
        this.replies.resume();
        return;
      case 'release':
        // Checked here, in the one process that takes requests in order: a reply that arrived first wins.
        if (
          this.state !== 'ready_for_review' ||
          this.ending !== undefined ||
          this.replies.size > 0 ||
          (this.control?.inFlight ?? 0) > 1
        ) {
          throw new BatonError('conflict', 'The session is in use; its agent is kept.');
        }
        await this.end('idle', request.message);
        return;
    }
  }

  private async deliverReply(text: string, answering: boolean): Promise<void> {
    // Race tests hold a reply here, handed over but its turn not yet begun (decision 456).
    await pausePoint('host.reply-handing');
    if (this.run === undefined || this.ending !== undefined) return;
    if (answering) this.record({ type: 'question.answered', text });
    // The answer to the agent's `ask_user` is that tool's result, which its MCP server reads from the log.
    if (answering && this.question.take()) return;
    await this.run.reply(text);
  }

  private async stop(reason?: string): Promise<void> {
    this.stopRequested = true;
    this.stopNote ??= reason;
    await this.end('stopped', reason);
  }

  /** Ends the session for good: closes the agent, records the end, and exits the host. */
  private end(reason: 'stopped' | 'completed' | 'failed' | 'idle', message?: string): Promise<void> {
    this.preparing.abort();
    this.ending ??= (async () => {
      await this.preparation?.catch(() => undefined);
      try {
        await this.run?.close();
      } catch (error) {
        log.warn('agent close failed', { session: this.spec.sessionId, error: errorMessage(error) });
      }
      this.change({ kind: 'host_ending', end: reason, message });
      this.writer.append({ type: 'session.ended', reason, ...(message === undefined ? {} : { message }) });
      void this.shutdown(reason === 'failed' ? 1 : 0);
    })();
    return this.ending;
  }

  private onAgentExited(error: string | undefined): void {
    if (this.ending !== undefined) return;
    if (error !== undefined) this.record({ type: 'error.raised', message: error, fatal: true });
    void this.end('failed', error ?? 'the agent exited');
  }

  /** Goes once events held while the disk is full are written: none is lost. */
  private async shutdown(code: number): Promise<void> {
    await this.writer.drained();
    this.writer.close();
    this.orphan?.close();
    this.control?.close();
    rmSync(this.paths.socket, { force: true });
    rmSync(this.paths.hostJson, { force: true });
    // The agent is gone, and with it the MCP server that held the session's credential.
    revokeCredential(this.spec.home, this.spec.sessionId);
    releaseClaim(this.paths.dir);
    // Exits once every in-flight request has had its answer written.
    const exit = (): void => this.exitCallbacks.forEach((callback) => callback(code));
    if (this.control === undefined) exit();
    else this.control.whenIdle(exit);
  }

  private listen(): Promise<void> {
    // Outside BATON_HOME the folder must be the user's alone, or another user could take the socket's place.
    ensureSocketFolder(this.spec.home, this.paths.socket);
    this.orphan = new OrphanWatch(this.spec.orphanMs ?? DEFAULT_ORPHAN_MS, () => this.endOrphaned());
    // The supervisor that launched us holds our IPC channel until we are ready, then watches the socket.
    if (process.connected) {
      this.orphan.connected();
      process.once('disconnect', () => this.orphan?.disconnected());
    }
    this.control = new ControlSocket(
      this.paths.socket,
      (request, asker) => this.handle(request, asker),
      this.orphan,
    );
    // A hold (decision 456) lasts while a supervisor watches: one killed mid-rebase cannot leave
    // the replies held for good.
    this.control.whenUnwatched(() => this.replies.resume());
    return this.control.listen();
  }

  /**
   * No supervisor has watched this host for its orphan time: it ends now if the session is idle,
   * keeping it resumable — ready for review keeps its state (as the watchdog's idle rule does), a
   * session waiting for a person is stopped saying why (a reply resumes either). A session at work
   * is left to finish its turn; the host ends at its next idle moment.
   */
  private endOrphaned(): boolean {
    if (this.ending !== undefined || this.replies.size > 0) return this.ending !== undefined;
    const seconds = Math.round((this.spec.orphanMs ?? DEFAULT_ORPHAN_MS) / 1000);
    const time = seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
    const why = `no supervisor for ${time}: its host ended itself; a reply resumes the session`;
    log.info('no supervisor; ending the idle host', { session: this.spec.sessionId, state: this.state });
    if (this.state === 'ready_for_review') void this.end('idle', why);
    else if (this.state === 'needs_input') void this.stop(why);
    else return false;
    return true;
  }
}
