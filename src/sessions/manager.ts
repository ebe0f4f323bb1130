/**
 * The supervisor's side of sessions: dispatch into worktrees, the queue behind the concurrency
 * cap, host processes (launch, watch, re-attach), event ingestion, and the user's commands.
 */
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { type z } from 'zod';
import { DispatchRequest, type PeekView, type SessionView } from '../api/index.js';
import { loadAdapter, type AgentId } from '../agents/index.js';
import type { BatonEvent, EventBody } from '../events/index.js';
import { BatonError, DangerousModeNotAcceptedError, InvalidInputError, SessionStateError, errorMessage } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { createLogger } from '../shared/log.js';
import { homePaths, sessionPaths } from '../shared/paths.js';
import type { Db } from '../store/db.js';
import { EventStore } from '../store/events.js';
import { SessionStore, type SessionWithProject } from '../store/sessions.js';
import { changedFiles, createWorktree, findRepository, projectWorktreePath, removeWorktree, resolveCommit, type RemoveResult } from '../worktrees/index.js';
import { EventLogWriter, readLog, type LogReadResult } from './event-log.js';
import { isHostAlive, sendToHost } from './host-client.js';
import { HostWatch } from './host-watch.js';
import { HostLauncher } from './launcher.js';
import { nameFromPrompt, validateSessionName } from './names.js';
import { resolveSessionRef } from './resolve.js';
import { ACTIVE_STATES, RESPAWNABLE_STATES } from './state.js';

const log = createLogger('sessions');

export interface ManagerOptions {
  home: string;
  db: Db;
  maxConcurrent: number;
  /** Environment for session hosts (and so for agents). */
  env: NodeJS.ProcessEnv;
  /** Keep one host process loaded and waiting, to start sessions faster (default true). */
  spareHost?: boolean;
  /** Seconds a session ready for review keeps its agent before its host lets go (0 or unset: kept). */
  idleHostSeconds?: number;
}

export interface ManagerEvents {
  event: [sessionId: string, event: BatonEvent];
  session: [sessionId: string];
}

export class SessionManager extends EventEmitter<ManagerEvents> {
  readonly store: SessionStore;
  readonly events: EventStore;
  private readonly watches = new Map<string, HostWatch>();
  private readonly launching = new Set<string>();
  /** The scheduling pass under way; callers during it wait for it, including the rerun they asked for. */
  private schedulingPass: Promise<void> | undefined;
  private rescheduleRequested = false;
  private closed = false;
  private readonly launcher: HostLauncher;

  constructor(private readonly options: ManagerOptions) {
    super();
    this.launcher = new HostLauncher(options.home, options.env, options.spareHost ?? true);
    this.setMaxListeners(0);
    this.store = new SessionStore(options.db);
    this.events = new EventStore(options.db, (id, projection) => this.store.applyProjection(id, projection));
  }

  get maxConcurrent(): number {
    return this.options.maxConcurrent;
  }

  // ── queries ────────────────────────────────────────────────────────────────

  resolve(ref: string, cwd?: string): SessionWithProject {
    return resolveSessionRef(this.store.listLive(), ref, cwd);
  }

  list(): SessionWithProject[] {
    return this.store.listLive();
  }

  isRunning(session: SessionWithProject): boolean {
    return isHostAlive(session.host_pid, session.id);
  }

  queuePosition(session: SessionWithProject): number | null {
    if (session.state !== 'queued') return null;
    const queued = this.store.listLive().filter((s) => s.state === 'queued');
    return queued.findIndex((s) => s.id === session.id) + 1;
  }

  activeCount(): number {
    return this.store.listLive().filter((s) => ACTIVE_STATES.includes(s.state) && !this.launching.has(s.id)).length + this.launching.size;
  }

  async peek(ref: string, cwd?: string): Promise<PeekView> {
    const session = this.resolve(ref, cwd);
    const recent = this.events.latest(session.id, ['tool.started', 'tool.finished', 'message.added'], 50);
    const finished = new Set(recent.filter((e) => e.type === 'tool.finished').map((e) => (e.type === 'tool.finished' ? e.toolId : '')));
    const running = recent.find((e) => e.type === 'tool.started' && !finished.has(e.toolId));
    const lastMessage = recent.find((e) => e.type === 'message.added' && e.role === 'assistant');
    const files = await changedFiles(session.worktree, session.base_commit).catch(() => []);
    return {
      session: this.view(session),
      currentStep: running?.type === 'tool.started' ? `running ${running.tool}: ${running.input}` : session.activity,
      lastOutput: lastMessage?.type === 'message.added' ? lastMessage.text : null,
      filesChanged: files,
    };
  }

  view(session: SessionWithProject): SessionView {
    return toView(session, this.isRunning(session), this.queuePosition(session));
  }

  // ── dispatch ───────────────────────────────────────────────────────────────

  async dispatch(input: z.input<typeof DispatchRequest>): Promise<SessionWithProject> {
    const request = DispatchRequest.parse(input);
    const repo = await findRepository(request.cwd);
    const baseCommit = request.base === undefined ? repo.head : await resolveCommit(repo.root, request.base);
    const baseRef = request.base ?? repo.branch;
    if (request.permissionMode === 'bypassPermissions' && !this.store.dangerousModeAccepted(repo.root)) {
      throw new DangerousModeNotAcceptedError(repo.root, request.permissionMode);
    }
    const adapter = await loadAdapter(request.agent);
    const agentOptions = adapter.validateOptions(request.options, repo.root);
    const project = this.store.ensureProject(repo.root);
    const name = this.pickName(project.id, request.name, request.prompt);
    const paths = homePaths(this.options.home);
    const worktree = projectWorktreePath(paths.worktrees, project.name, name);
    const branch = `baton/${name}`;
    const id = newId();
    await createWorktree({ repo: repo.root, path: worktree, branch, baseCommit });
    try {
      this.store.insert(
        {
          id,
          project_id: project.id,
          name,
          agent: request.agent,
          prompt: request.prompt,
          model: request.model ?? null,
          permission_mode: request.permissionMode,
          options_json: JSON.stringify(agentOptions),
          branch,
          base_ref: baseRef,
          base_commit: baseCommit,
          worktree,
        },
        'queued',
      );
      mkdirSync(sessionPaths(this.options.home, id).dir, { recursive: true });
      this.appendAsSupervisor(id, [{ type: 'state.changed', to: 'queued' }]);
    } catch (error) {
      // Leave nothing half-created.
      await removeWorktree({ repo: repo.root, path: worktree, branch, baseCommit, snapshotName: name }).catch(() => undefined);
      this.store.delete(id);
      rmSync(sessionPaths(this.options.home, id).dir, { recursive: true, force: true });
      throw error;
    }
    await this.schedule();
    return this.mustGet(id);
  }

  private pickName(projectId: string, requested: string | undefined, prompt: string): string {
    if (requested !== undefined) {
      validateSessionName(requested);
      if (this.store.nameTaken(projectId, requested)) {
        throw new SessionStateError(`A session named "${requested}" already exists in this project; pick another --name or \`baton rm ${requested}\` first.`);
      }
      return requested;
    }
    const base = nameFromPrompt(prompt);
    let name = base;
    for (let n = 2; this.store.nameTaken(projectId, name); n++) name = `${base}-${n}`;
    return name;
  }

  // ── commands ───────────────────────────────────────────────────────────────

  /**
   * Sends a reply. A session that is no longer running (stopped, failed, or finished and its
   * host gone) is respawned first, resuming its conversation, and the reply is its next turn.
   */
  async reply(ref: string, text: string, cwd?: string): Promise<SessionWithProject> {
    if (text.trim() === '') throw new InvalidInputError('The reply is empty.');
    const session = this.resolve(ref, cwd);
    if (!this.isRunning(session) && RESPAWNABLE_STATES.includes(session.state)) await this.resumeToReply(session);
    else this.requireRunning(session, 'reply to');
    await sendToHost(sessionPaths(this.options.home, session.id).socket, { op: 'reply', text });
    return this.settle(session.id);
  }

  /** Respawns a session so it can take a reply, or says why it cannot, before changing anything. */
  private async resumeToReply(session: SessionWithProject): Promise<void> {
    // Queued sessions are ahead of this one for the next free slot.
    const queued = this.store.listLive().filter((s) => s.state === 'queued').length;
    if (this.activeCount() + queued >= this.options.maxConcurrent) {
      throw new SessionStateError(
        `Cannot reply to ${session.name}: it is ${session.state}, and resuming it would exceed the limit of ${this.options.maxConcurrent} running sessions. Stop one, or raise BATON_MAX_CONCURRENT, then reply again.`,
      );
    }
    await this.respawn(session.id);
    const resumed = this.mustGet(session.id);
    if (resumed.state === 'queued') {
      throw new SessionStateError(`Cannot reply to ${session.name} yet: it was respawned but another session took the free slot first; it resumes when a slot frees, then reply again.`);
    }
    if (!this.isRunning(resumed)) {
      throw new SessionStateError(`Cannot reply to ${session.name}: it was respawned to take the reply but did not start (it is ${resumed.state}); its transcript says why.`);
    }
  }

  async resolveApproval(ref: string, decision: 'allow' | 'deny', reason?: string, requestId?: string, cwd?: string): Promise<SessionWithProject> {
    const session = this.resolve(ref, cwd);
    if (session.state !== 'needs_input' || session.state_reason_json === null || !session.state_reason_json.includes('"approval"')) {
      throw new SessionStateError(`Session ${session.name} is not waiting for an approval (it is ${session.state}).`);
    }
    this.requireRunning(session, decision === 'allow' ? 'approve' : 'deny');
    await sendToHost(sessionPaths(this.options.home, session.id).socket, {
      op: 'approval',
      decision,
      ...(reason === undefined ? {} : { reason }),
      ...(requestId === undefined ? {} : { requestId }),
    });
    return this.settle(session.id);
  }

  async interrupt(ref: string, cwd?: string): Promise<SessionWithProject> {
    const session = this.resolve(ref, cwd);
    this.requireRunning(session, 'interrupt');
    await sendToHost(sessionPaths(this.options.home, session.id).socket, { op: 'interrupt' });
    return this.settle(session.id);
  }

  async stop(ref: string, cwd?: string): Promise<SessionWithProject> {
    const session = this.resolve(ref, cwd);
    if (session.state === 'queued') {
      this.appendAsSupervisor(session.id, [{ type: 'state.changed', from: 'queued', to: 'stopped', reason: { kind: 'note', message: 'stopped by the user' } }]);
      return this.mustGet(session.id);
    }
    if (!this.isRunning(session)) throw new SessionStateError(`Session ${session.name} is not running (it is ${session.state}).`);
    await this.stopHost(session);
    return this.mustGet(session.id);
  }

  async done(ref: string, cwd?: string): Promise<SessionWithProject> {
    const session = this.resolve(ref, cwd);
    if (session.state === 'completed') return session;
    if (this.isRunning(session)) {
      await sendToHost(sessionPaths(this.options.home, session.id).socket, { op: 'complete' });
      await this.watches.get(session.id)?.gone;
      this.ingest(session.id);
    } else {
      this.appendAsSupervisor(session.id, [
        { type: 'state.changed', from: session.state, to: 'completed' },
        { type: 'session.ended', reason: 'completed' },
      ]);
    }
    await this.schedule();
    return this.mustGet(session.id);
  }

  /** Records that the user accepted dangerous permission modes for the repository at `cwd`. */
  async acceptDangerousMode(cwd: string): Promise<string> {
    const repo = await findRepository(cwd);
    this.store.acceptDangerousMode(repo.root);
    log.info('dangerous permission modes accepted', { root: repo.root });
    return repo.root;
  }

  setPinned(ref: string, pinned: boolean, cwd?: string): SessionWithProject {
    const session = this.resolve(ref, cwd);
    this.store.setPinned(session.id, pinned);
    this.emit('session', session.id);
    return this.mustGet(session.id);
  }

  async remove(ref: string, cwd?: string): Promise<{ session: SessionWithProject; result: RemoveResult }> {
    const session = this.resolve(ref, cwd);
    if (this.isRunning(session)) await this.stopHost(session);
    const result = await removeWorktree({
      repo: session.project_root,
      path: session.worktree,
      branch: session.branch,
      baseCommit: session.base_commit,
      snapshotName: session.name,
    });
    this.store.markRemoved(session.id, result.snapshotRef ?? null);
    this.watches.get(session.id)?.close();
    this.watches.delete(session.id);
    this.emit('session', session.id);
    await this.schedule();
    return { session: this.mustGet(session.id), result };
  }

  async respawn(ref: string, cwd?: string): Promise<SessionWithProject> {
    const session = this.resolve(ref, cwd);
    if (!RESPAWNABLE_STATES.includes(session.state) && this.isRunning(session)) {
      throw new SessionStateError(`Session ${session.name} is ${session.state}; respawn restarts sessions that are failed, stopped or ready for review.`);
    }
    if (session.state === 'completed') throw new SessionStateError(`Session ${session.name} is completed; dispatch a new session instead.`);
    if (!existsSync(session.worktree)) throw new SessionStateError(`The worktree of ${session.name} is gone (${session.worktree}); it cannot be respawned.`);
    if (this.isRunning(session)) await this.stopHost(session);
    const current = this.mustGet(session.id);
    if (current.state !== 'queued') this.appendAsSupervisor(session.id, [{ type: 'state.changed', from: current.state, to: 'queued', reason: { kind: 'note', message: 'respawn requested' } }]);
    await this.schedule();
    return this.mustGet(session.id);
  }

  async respawnAll(projectRoot?: string): Promise<SessionWithProject[]> {
    const targets = this.store
      .listLive()
      .filter((s) => (s.state === 'failed' || s.state === 'stopped') && (projectRoot === undefined || s.project_root === projectRoot));
    const respawned: SessionWithProject[] = [];
    for (const session of targets) respawned.push(await this.respawn(session.id));
    return respawned;
  }

  // ── hosts ──────────────────────────────────────────────────────────────────

  /** Re-attaches to hosts that kept running while the supervisor was away, and ingests what they wrote. */
  async reattachAll(): Promise<void> {
    const started = performance.now();
    let ingested = 0;
    let attached = 0;
    for (const session of this.store.listLive()) {
      ingested += this.ingest(session.id);
      const fresh = this.mustGet(session.id);
      if (fresh.host_pid === null) continue;
      if (isHostAlive(fresh.host_pid, fresh.id)) {
        this.watch(fresh.id);
        attached++;
      } else this.onHostGone(fresh.id);
    }
    log.info('re-attached', { hosts: attached, eventsIngested: ingested, ms: Math.round(performance.now() - started) });
    await this.schedule();
  }

  /**
   * Starts queued sessions while there is room under the cap. A call during a pass asks for one
   * more pass and resolves when that is done, so whoever queued a session sees it started.
   */
  schedule(): Promise<void> {
    if (this.schedulingPass !== undefined) {
      this.rescheduleRequested = true;
      return this.schedulingPass;
    }
    this.schedulingPass = (async () => {
      try {
        do {
          this.rescheduleRequested = false;
          const queued = this.store.listLive().filter((s) => s.state === 'queued' && !this.launching.has(s.id));
          const room = this.options.maxConcurrent - this.activeCount();
          const starts = queued.slice(0, Math.max(0, room)).map((s) => this.startHost(s));
          await Promise.all(starts);
        } while (this.rescheduleRequested && !this.closed);
      } finally {
        this.schedulingPass = undefined;
      }
    })();
    return this.schedulingPass;
  }

  private async startHost(session: SessionWithProject): Promise<void> {
    const started = performance.now();
    this.launching.add(session.id);
    try {
      const host = await this.launcher.launch(
        {
          sessionId: session.id,
          home: this.options.home,
          agent: session.agent as AgentId,
          cwd: session.worktree,
          prompt: session.prompt,
          ...(session.model === null ? {} : { model: session.model }),
          permissionMode: session.permission_mode as 'default',
          options: JSON.parse(session.options_json) as Record<string, unknown>,
          ...(session.agent_session_id === null ? {} : { resumeId: session.agent_session_id }),
          ...(this.options.idleHostSeconds ? { idleExitMs: this.options.idleHostSeconds * 1000 } : {}),
        },
      );
      this.store.setHostPid(session.id, host.pid);
      this.watch(session.id, host.exited);
      log.info('host started', { session: session.id, pid: host.pid, ms: Math.round(performance.now() - started) });
    } catch (error) {
      log.error('host launch failed', { session: session.id, error: errorMessage(error) });
      // A host that died before writing anything leaves the session queued; scheduling it again
      // would fail the same way, for ever. Record the failure so it stays put and says why.
      this.ingest(session.id);
      if (this.mustGet(session.id).state === 'queued') {
        const message = `its session host could not start: ${errorMessage(error)}`;
        this.appendAsSupervisor(session.id, [
          { type: 'error.raised', message, fatal: true },
          { type: 'state.changed', from: 'queued', to: 'failed', reason: { kind: 'error', message } },
          { type: 'session.ended', reason: 'failed', message },
        ]);
      }
      this.onHostGone(session.id);
    } finally {
      this.launching.delete(session.id);
      this.ingest(session.id);
    }
  }

  private watch(sessionId: string, exited?: Promise<number | null>): void {
    this.watches.get(sessionId)?.close();
    const paths = sessionPaths(this.options.home, sessionId);
    const watch = new HostWatch(paths.events, paths.socket, () => this.ingest(sessionId), exited);
    this.watches.set(sessionId, watch);
    watch.gone
      .then(() => {
        if (this.watches.get(sessionId) === watch) {
          this.watches.delete(sessionId);
          this.onHostGone(sessionId);
        }
      })
      .catch((error: unknown) => log.error('host watch failed', { session: sessionId, error: errorMessage(error) }));
  }

  /** The host has exited: ingest its last events, and record a crash if it did not end the session itself. */
  private onHostGone(sessionId: string): void {
    if (this.closed) return;
    this.ingest(sessionId);
    const session = this.store.get(sessionId);
    if (session === undefined) return;
    if (isHostAlive(session.host_pid, sessionId)) return;
    const [last] = this.events.latest(sessionId, ['session.started', 'session.ended'], 1);
    if (last?.type === 'session.started' || ACTIVE_STATES.includes(session.state)) {
      const message = `the session host (pid ${session.host_pid ?? '?'}) exited unexpectedly; \`baton respawn ${session.name}\` restarts it`;
      this.appendAsSupervisor(sessionId, [
        { type: 'error.raised', message, fatal: true },
        { type: 'state.changed', from: session.state, to: 'failed', reason: { kind: 'error', message } },
        { type: 'session.ended', reason: 'host_exited', message },
      ]);
    }
    this.store.setHostPid(sessionId, null);
    this.emit('session', sessionId);
    this.schedule().catch((error: unknown) => log.error('schedule failed', { error: errorMessage(error) }));
  }

  private async stopHost(session: SessionWithProject): Promise<void> {
    const watch = this.watches.get(session.id);
    try {
      await sendToHost(sessionPaths(this.options.home, session.id).socket, { op: 'stop' });
    } catch (error) {
      if (!(error instanceof BatonError) || error.code !== 'conflict') throw error;
    }
    if (watch !== undefined) await watch.gone;
    else await waitForExit(session.host_pid, session.id);
    this.ingest(session.id);
    this.store.setHostPid(session.id, null);
  }

  // ── events ─────────────────────────────────────────────────────────────────

  /** Reads new lines of a session's log into the store and announces them. */
  /** Returns how many new events were stored. */
  ingest(sessionId: string): number {
    const first = this.store.get(sessionId);
    if (first === undefined) return 0;
    const before = first.state;
    let inserted = 0;
    // In batches, so a long backlog (a host that ran while we were down) never sits in memory whole.
    for (let session = first; ; ) {
      const { events, offset, malformed } = readNew(this.options.home, sessionId, session.ingested_offset);
      for (const bad of malformed) log.warn('malformed event line skipped', { session: sessionId, ...bad });
      if (events.length === 0 && offset === session.ingested_offset) break;
      inserted += this.events.ingest(session, events, offset);
      for (const event of events) if (event.seq > session.last_seq) this.emit('event', sessionId, event);
      const next = this.store.get(sessionId);
      if (next === undefined) break;
      session = next;
    }
    if (inserted === 0 && this.store.get(sessionId)?.ingested_offset === first.ingested_offset) return 0;
    const after = this.store.get(sessionId)?.state;
    this.emit('session', sessionId);
    if (after !== before && (after === undefined || !ACTIVE_STATES.includes(after))) {
      this.schedule().catch((error: unknown) => log.error('schedule failed', { error: errorMessage(error) }));
    }
    return inserted;
  }

  /** Writes events while no host runs for the session (queued, crashed, ended). */
  private appendAsSupervisor(sessionId: string, bodies: EventBody[]): void {
    const writer = new EventLogWriter(sessionPaths(this.options.home, sessionId).events);
    try {
      for (const body of bodies) writer.append(body);
    } finally {
      writer.close();
    }
    this.ingest(sessionId);
  }

  private requireRunning(session: SessionWithProject, action: string): void {
    if (!this.isRunning(session)) {
      const hint = session.state === 'queued' ? 'it is queued and has not started yet' : `it is ${session.state}; \`baton respawn ${session.name}\` restarts it`;
      throw new SessionStateError(`Cannot ${action} ${session.name}: ${hint}.`);
    }
  }

  /** After a command, take in what the host wrote in answer. */
  private settle(sessionId: string): SessionWithProject {
    this.ingest(sessionId);
    return this.mustGet(sessionId);
  }

  private mustGet(id: string): SessionWithProject {
    const session = this.store.get(id);
    if (session === undefined) throw new BatonError('internal', `session ${id} vanished`);
    return session;
  }

  /** Stops watching; hosts keep running on their own. */
  close(): void {
    this.closed = true;
    this.launcher.close();
    for (const watch of this.watches.values()) watch.close();
    this.watches.clear();
  }

  get(id: string): SessionWithProject | undefined {
    return this.store.get(id);
  }

  eventsAfter(sessionId: string, after: number, limit?: number): BatonEvent[] {
    return this.events.list(sessionId, after, limit);
  }

  latestEvents(sessionId: string, types: string[], limit: number): BatonEvent[] {
    return this.events.latest(sessionId, types, limit);
  }
}

const INGEST_BATCH_BYTES = 4 * 1024 * 1024;

function readNew(home: string, sessionId: string, offset: number): LogReadResult {
  return readLog(sessionPaths(home, sessionId).events, offset, INGEST_BATCH_BYTES);
}

async function waitForExit(pid: number | null, sessionId: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (isHostAlive(pid, sessionId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

export function toView(session: SessionWithProject, running: boolean, queuePosition: number | null): SessionView {
  return {
    id: session.id,
    name: session.name,
    project: session.project_name,
    projectRoot: session.project_root,
    agent: session.agent,
    model: session.model,
    permissionMode: session.permission_mode,
    prompt: session.prompt,
    state: session.state,
    reason: session.state_reason_json === null ? null : (JSON.parse(session.state_reason_json) as SessionView['reason']),
    pinned: session.pinned === 1,
    branch: session.branch,
    baseRef: session.base_ref,
    baseCommit: session.base_commit,
    worktree: session.worktree,
    hostPid: session.host_pid,
    running,
    activity: session.activity,
    lastSeq: session.last_seq,
    inputTokens: session.input_tokens,
    outputTokens: session.output_tokens,
    costUsd: session.cost_usd,
    createdAt: session.created_at,
    updatedAt: session.updated_at,
    lastEventAt: session.last_event_at,
    queuePosition,
  };
}
