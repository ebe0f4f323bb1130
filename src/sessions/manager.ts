/**
 * The supervisor's face of the sessions domain. It wires the parts — dispatch, the user's
 * commands, host supervision, ingestion, and the scheduler with its concurrency slots — and is
 * the only thing the server talks to. Each part lives in its own module.
 */
import { EventEmitter } from 'node:events';
import type { z } from 'zod';
import type { EnvironmentView } from '../api/environments.js';
import type { DispatchRequest, PeekView, SessionView } from '../api/index.js';
import type { EvidenceMark } from '../api/provenance.js';
import { PendingApprovals } from '../approvals/index.js';
import { WorkspaceBus } from '../bus/index.js';
import type { Headroom, MemoryAdmission } from '../capacity/index.js';
import type { BatonEvent } from '../events/index.js';
import { Scheduler, type Gate } from '../scheduler/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { pausePoint } from '../shared/test-points.js';
import type { Db } from '../store/db.js';
import { PendingDispatchStore } from '../store/pending-dispatches.js';
import { PortLeaseStore } from '../store/port-leases.js';
import type { SearchIndex } from '../context/index.js';
import { SessionStore, type SessionWithProject } from '../store/sessions.js';
import {
  findRepository,
  setWorktreeResolver,
  type RemoveResult,
  type WorkSnapshot,
} from '../worktrees/index.js';
import { Archive } from './archive.js';
import { SessionCommands, type MessageAuthor, type MessageDelivery } from './commands.js';
import { SessionsCore, type RemovalGuard, type ResumeGuard } from './core.js';
import { dispatchSession, recoverInterruptedDispatches } from './dispatch.js';
import { environmentView } from './environment-view.js';
import { HostSupervisor } from './hosts.js';
import { admitByMemory, type MemoryOptions } from './memory-admission.js';
import { Ingestor } from './ingest.js';
import { ACTIVE_STATES } from './state.js';
import { peekAt } from './views.js';
import { SessionViews } from './session-view.js';
import { reviewCapacityGate, type ReviewCapacity } from './review-capacity.js';
import { WorkSizes } from './work-sizes.js';

const log = createLogger('sessions');

/** What the session manager is made with. */
export interface ManagerOptions {
  home: string;
  db: Db;
  maxConcurrent: number;
  /** The user's environment, the base of each session's own (see environment.ts). */
  env: NodeJS.ProcessEnv;
  /** Keep one host process loaded and waiting, to start sessions faster (default true). */
  spareHost?: boolean;
  /** A cap on the work waiting for review, which holds new dispatches queued (review-capacity.ts); none by default. */
  reviewCapacity?: ReviewCapacity | undefined;
  /** The workspace bus; one is made on the same database when not given. */
  bus?: WorkspaceBus;
  /** Memory-aware admission (decision 260); none (the count cap alone) when not given. */
  memory?: MemoryOptions;
}

/** The events the manager emits: each session event as it is ingested, and a session's row changing. */
export interface ManagerEvents {
  event: [sessionId: string, event: BatonEvent];
  session: [sessionId: string];
}

export class SessionManager extends EventEmitter<ManagerEvents> {
  readonly bus: WorkspaceBus;
  /** The size of each session's work, and the review queue. */
  readonly workSizes: WorkSizes;
  /** Disk, cleanup, snapshots and restore (decision 59, "Setup runs in the session's host"). */
  readonly archive: Archive;
  /** Search over every session's events (src/context), indexed as they are ingested. */
  readonly search: SearchIndex;
  private readonly store: SessionStore;
  private readonly ingestor: Ingestor;
  private readonly hosts: HostSupervisor;
  private readonly scheduler: Scheduler<SessionWithProject>;
  private readonly core: SessionsCore;
  private readonly commands: SessionCommands;
  private closed = false;
  /** Memory-aware admission and the machine's headroom; undefined when not asked for. */
  readonly memory: MemoryAdmission | undefined;
  private memoryTimer: NodeJS.Timeout | undefined;
  private context: ((session: SessionWithProject) => string | undefined) | undefined;
  /** Each session's view, with what other domains add to it (cost, evidence, freshness). */
  private readonly views: SessionViews;

  constructor(private readonly options: ManagerOptions) {
    super();
    this.setMaxListeners(0);
    this.bus = options.bus ?? new WorkspaceBus(options.db);
    this.store = new SessionStore(options.db);
    // Baton's git in a session's worktree takes its git folders from these records (decision 201).
    setWorktreeResolver((worktree) => this.store.repositoryOfWorktree(worktree));
    this.ingestor = new Ingestor(options.home, options.db, this.store, this.bus);
    this.search = this.ingestor.search;
    this.hosts = new HostSupervisor({
      home: options.home,
      env: options.env,
      spareHost: options.spareHost ?? true,
      store: this.store,
      events: this.ingestor.events,
      ingestor: this.ingestor,
      onGone: () => this.reschedule(),
      contextFor: (session) => this.context?.(session),
    });
    this.scheduler = new Scheduler<SessionWithProject>({
      slots: () => options.maxConcurrent,
      busy: (starting) =>
        this.store.listLive().filter((s) => ACTIVE_STATES.includes(s.state) && !starting(s.id)).length,
      // A queued session whose host is already up (adopted after a restart) is not started twice.
      waiting: () => this.core.queued().filter((s) => !this.hosts.isRunning(s)),
      id: (session) => session.id,
      start: (session) => this.hosts.launch(session),
    });
    this.core = new SessionsCore(
      options.home,
      this.store,
      this.ingestor,
      this.hosts,
      this.scheduler,
      this.bus,
      options.maxConcurrent,
      new PendingDispatchStore(options.db, this.store),
      new PortLeaseStore(options.db),
    );
    this.commands = new SessionCommands(this.core, new PendingApprovals(options.db));
    this.views = new SessionViews(this.core, this.scheduler, (session) => this.hosts.isRunning(session));
    this.archive = new Archive(this.core, this.commands);
    // A measured size may free (or fill) the review capacity: the queue is looked at again.
    this.workSizes = new WorkSizes(this, this.bus, undefined, () => this.reschedule(), options.home);
    const cap = options.reviewCapacity;
    if (cap !== undefined && (cap.sessions !== undefined || cap.lines !== undefined))
      this.scheduler.addGate(reviewCapacityGate(cap, () => this.workSizes.reviewQueue()));
    if (options.memory !== undefined) {
      const admitted = admitByMemory(options.memory, {
        db: options.db,
        bus: this.bus,
        store: this.store,
        scheduler: this.scheduler,
        isRunning: (session) => this.hosts.isRunning(session),
        release: (id, message) => this.commands.release(id, message),
        reschedule: () => this.reschedule(),
      });
      this.memory = admitted.memory;
      this.memoryTimer = admitted.timer;
    }
    this.ingestor.on('event', (id, event) => this.emit('event', id, event));
    this.ingestor.on('session', (id) => this.emit('session', id));
    // A session leaving a mid-turn state frees a slot.
    this.ingestor.on('state', (id, before, after) => {
      // A session that has ended for good gives its ports back (a failed or stopped one keeps them for a respawn).
      if (after === 'completed') this.core.ports.release(id);
      // A host that took its session while no supervisor had it recorded (decision 65) is taken on.
      if (before === 'queued') this.hosts.adoptUnrecorded(id);
      if (after === undefined || !ACTIVE_STATES.includes(after)) this.reschedule();
    });
  }

  /** The store's database, for domains that keep tables of their own beside the sessions (tasks, allow rules). */
  get db(): Db {
    return this.options.db;
  }

  get maxConcurrent(): number {
    return this.options.maxConcurrent;
  }

  // ── queries ────────────────────────────────────────────────────────────────
  resolve(ref: string, cwd?: string): SessionWithProject {
    return this.core.resolve(ref, cwd);
  }

  /** A live session, else a removed (landed) one: for reading the record of its work. */
  resolveRecord(ref: string, cwd?: string): SessionWithProject {
    return this.core.resolveRecord(ref, cwd);
  }

  /** Removed sessions, newest first (`baton ls --all`). */
  listRemoved(): SessionWithProject[] {
    return this.store.listRemoved();
  }

  /**
   * `baton env`: ports, variables, setup log and disk of one session (decision 59, "Setup runs in the
   * session's host").
   */
  /** Baton's state folder. */
  get home(): string {
    return this.options.home;
  }

  environment(ref: string, cwd?: string): EnvironmentView {
    return environmentView(this.options.home, this.core.resolve(ref, cwd));
  }

  get(id: string): SessionWithProject | undefined {
    return this.store.get(id);
  }

  list(): SessionWithProject[] {
    return this.store.listLive();
  }

  /** Sessions waiting for a slot, not those whose host is already starting (decision 432). */
  inLine(): number {
    return this.core.inLine().length;
  }

  isRunning(session: SessionWithProject): boolean {
    return this.hosts.isRunning(session);
  }

  /** Slots in use: sessions mid-turn plus those whose host is starting. */
  activeCount(): number {
    return this.scheduler.used();
  }

  /** Slots nobody holds or waits for: neither mid-turn nor starting nor queued here. */
  freeSlots(): number {
    return Math.max(0, this.options.maxConcurrent - this.scheduler.used() - this.core.inLine().length);
  }

  /** A queued session's view says why it is held back (a task's dependency, a budget), as the last scheduling pass said. */
  view(session: SessionWithProject): SessionView {
    return this.views.view(session);
  }

  /** What Baton checked of each session's work (src/provenance, decision 290), shown on its view. */
  readEvidenceFrom(evidence: (sessionId: string, name: string) => EvidenceMark | undefined): void {
    this.views.evidence = evidence;
  }

  /**
   * Every view of a session's cost reads the usage ledger (decision 154, "One priced ledger"):
   * the row's own sum counts only what agents priced themselves, so a Codex session (tokens only)
   * showed $0 there while `baton cost` priced it.
   */
  readCostsFrom(costs: (sessionId: string) => number): void {
    this.views.costs = costs;
  }

  costOf(session: SessionWithProject): number {
    return this.views.costOf(session);
  }

  async peek(ref: string, cwd?: string): Promise<PeekView> {
    const session = this.resolve(ref, cwd);
    const view = await peekAt(session, this.view(session), this.ingestor.events);
    // The process tree's memory (host, agent, their children), measured for this answer when stale.
    const memoryMb = session.host_pid === null ? undefined : this.memory?.sessionMb(session.id);
    return memoryMb === undefined ? view : { ...view, memoryMb: Math.round(memoryMb) };
  }

  /** The machine's memory headroom for new sessions (decision 260); undefined without memory admission. */
  headroom(): Headroom | undefined {
    return this.memory?.headroom();
  }

  /** A session's events with seq > after, oldest first. */
  eventsAfter(sessionId: string, after: number, limit?: number): BatonEvent[] {
    return this.ingestor.events.list(sessionId, after, limit);
  }

  /** A session's newest events of the given types, newest first. */
  latestEvents(sessionId: string, types: string[], limit: number): BatonEvent[] {
    return this.ingestor.events.latest(sessionId, types, limit);
  }

  // ── commands ───────────────────────────────────────────────────────────────
  /** `request` is parsed at the boundary; `work` is laid over the new worktree (a respawn's snapshot); `baseRef` names a base fetched as a commit (a placed session). */
  async dispatch(
    request: z.output<typeof DispatchRequest>,
    work?: WorkSnapshot,
    baseRef?: string,
  ): Promise<SessionWithProject> {
    return (
      await dispatchSession(this.core, request, {
        ...(work === undefined ? {} : { work }),
        ...(baseRef === undefined ? {} : { baseRef }),
      })
    ).session;
  }

  /**
   * A dispatch from a task (decision 71, "Tasks are their own domain beside sessions"): the session
   * records the task it works on.
   */
  dispatchForTask(request: z.output<typeof DispatchRequest>, taskId: number): Promise<SessionWithProject> {
    return dispatchSession(this.core, request, { taskId }).then((r) => r.session);
  }

  /** Moves a queued session, not yet started, onto a new base commit (its worktree already reset there). */
  rebaseQueued(sessionId: string, commit: string): void {
    this.store.setBaseCommit(sessionId, commit);
  }

  /** A session's branch was rebased onto its base's newer tip (keep-fresh, decision 307): its change is counted from there. */
  moveBase(sessionId: string, commit: string): void {
    this.store.setBaseCommit(sessionId, commit);
  }

  /** Runs `work` while no other command runs on the session; a reply meanwhile waits (decision 307). */
  whileHeld<T>(sessionId: string, work: (session: SessionWithProject) => Promise<T>): Promise<T> {
    return this.commands.whileHeld(sessionId, work);
  }

  /**
   * `whileHeld`, with the session's host handing its agent nothing meanwhile; undefined, and nothing
   * done, when the host says a turn is under way (decision 456). Keep-fresh's rebase runs so.
   */
  whileQuiet<T>(
    sessionId: string,
    work: (session: SessionWithProject) => Promise<T>,
  ): Promise<T | undefined> {
    return this.commands.whileQuiet(sessionId, work);
  }

  /** What keep-fresh last did or holds for a session, shown in its view (decision 307). */
  setFreshness(provider: (sessionId: string) => SessionView['fresh']): void {
    this.views.freshness = provider;
  }

  /** Holds queued sessions back until the gate lets them through (task dependencies, budgets); returns its removal. */
  addGate(gate: Gate<SessionWithProject>): () => void {
    return this.scheduler.addGate(gate);
  }

  /** Why each held session waits, from the last scheduling pass. */
  heldSessions(): readonly { id: string; gate: string; reason: string }[] {
    return this.scheduler.held();
  }

  /** Instructions another domain adds to a session's own at each start (a task's context). */
  setContextProvider(provider: (session: SessionWithProject) => string | undefined): void {
    this.context = provider;
  }

  /** Another domain's hold on worktree removals (see `RemovalGuard`). */
  guardRemovals(guard: RemovalGuard): void {
    this.core.removalGuard = guard;
  }

  /** Another domain's say on a session starting again here (see `ResumeGuard`); undefined: none. */
  guardResumes(guard: ResumeGuard | undefined): void {
    this.core.resumeGuard = guard ?? (async () => {});
  }

  /** A dispatch, and what the main checkout held: uncommitted changes, and whether they were carried. */
  dispatchWithNotes(
    request: z.output<typeof DispatchRequest>,
  ): Promise<{ session: SessionWithProject; mainCheckout: { changedFiles: number; carried: boolean } }> {
    return dispatchSession(this.core, request);
  }

  reply(ref: string, text: string, cwd?: string, clientId?: string): Promise<SessionWithProject> {
    return this.commands.reply(ref, text, cwd, clientId);
  }

  /** A message from another session's agent through Baton's MCP server (see commands.ts). */
  message(
    ref: string,
    text: string,
    from: MessageAuthor,
    cwd?: string,
  ): Promise<{ session: SessionWithProject; delivery: MessageDelivery }> {
    return this.commands.message(ref, text, from, cwd);
  }

  /** The session's agent asks its user through Baton's MCP server. */
  ask(sessionId: string, text: string): Promise<SessionWithProject> {
    return this.commands.ask(sessionId, text);
  }

  resolveApproval(
    ref: string,
    decision: 'allow' | 'deny',
    reason?: string,
    requestId?: string,
    cwd?: string,
  ): Promise<SessionWithProject> {
    return this.commands.resolveApproval(ref, decision, reason, requestId, cwd);
  }

  interrupt(ref: string, cwd?: string): Promise<SessionWithProject> {
    return this.commands.interrupt(ref, cwd);
  }

  /** The watchdog's pause (a budget, a loop): needs input with `reason`; a reply resumes. */
  pause(sessionId: string, reason: string): Promise<SessionWithProject> {
    return this.commands.pause(sessionId, reason);
  }

  stop(ref: string, cwd?: string): Promise<SessionWithProject> {
    return this.commands.stop(ref, cwd);
  }

  /** Stops a session for `reason`, not the user's (a lost placement): the stopped state says why. */
  halt(sessionId: string, reason: string): Promise<SessionWithProject> {
    return this.commands.halt(sessionId, reason);
  }

  /** The watchdog's idle rule: an unused agent let go, the session kept; false when it was in use. */
  release(sessionId: string, message: string): Promise<boolean> {
    return this.commands.release(sessionId, message);
  }

  done(ref: string, cwd?: string): Promise<SessionWithProject> {
    return this.commands.done(ref, cwd);
  }

  setPinned(ref: string, pinned: boolean, cwd?: string): SessionWithProject {
    return this.commands.setPinned(ref, pinned, cwd);
  }

  remove(
    ref: string,
    cwd?: string,
  ): Promise<{ session: SessionWithProject; result: RemoveResult & { teardownFailures?: string[] } }> {
    return this.commands.remove(ref, cwd);
  }

  respawn(ref: string, cwd?: string): Promise<SessionWithProject> {
    return this.commands.respawn(ref, cwd);
  }

  respawnAll(projectRoot?: string): Promise<SessionWithProject[]> {
    return this.commands.respawnAll(projectRoot);
  }

  /** Records that the user accepted dangerous permission modes for the repository at `cwd`. */
  async acceptDangerousMode(cwd: string): Promise<string> {
    const repo = await findRepository(cwd);
    this.store.acceptDangerousMode(repo.root);
    log.info('dangerous permission modes accepted', { root: repo.root });
    return repo.root;
  }

  // ── lifecycle ──────────────────────────────────────────────────────────────
  /**
   * After a start: undoes dispatches the last supervisor was killed in the middle of, re-attaches
   * to hosts that kept running while it was away, then starts what is queued.
   */
  async reattachAll(): Promise<void> {
    await this.reattach();
    await this.scheduler.run();
  }

  /**
   * Dispatches cut off by a kill undone, hosts that kept running re-attached and what they wrote
   * ingested; queued sessions are started later (`schedule`), since their hosts take time to start.
   */
  async reattach(): Promise<void> {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await recoverInterruptedDispatches(this.core);
    // Every backlog stored before any listener hears of it (decision 448).
    const release = this.ingestor.hold();
    let reattached: { attached: number; ingested: number };
    let ingestedAt: number;
    try {
      reattached = this.hosts.reattachAll();
    } finally {
      ingestedAt = performance.now();
      release();
    }
    log.info('re-attached', {
      hosts: reattached.attached,
      eventsIngested: reattached.ingested,
      ms: Math.round(ingestedAt - started),
      // This process's own CPU time for all of it, listeners included: on a shared machine wall time
      // moves with the load far more than this does.
      cpuMs: Math.round(cpuMsOf(process.cpuUsage(cpu))),
      // The listeners' share (watchdog, provenance, approvals…), heard after the ingestion it follows.
      listenersMs: Math.round(performance.now() - ingestedAt),
    });
    // Off the request path: the review queue's sizes are measured now, not when `ls` first asks.
    this.workSizes
      .warm()
      .catch((error: unknown) =>
        log.warn('measuring the review queue failed', { error: errorMessage(error) }),
      );
  }

  /**
   * Ends every running session host (`daemon stop --all`): a session resting in ready for review
   * keeps its state (its agent let go, as the idle rule does), any other is stopped saying why.
   * Either resumes on a reply. Nothing queued is started meanwhile.
   */
  async endAllHosts(why: string): Promise<number> {
    this.scheduler.close();
    // Race tests hold the hosts' ending here (`daemon stop --all --timeout`, decision 462).
    await pausePoint('hosts.ending');
    let ended = 0;
    for (const session of this.store.listLive()) {
      if (!this.hosts.isRunning(session)) continue;
      try {
        if (!(session.state === 'ready_for_review' && (await this.hosts.release(session, why))))
          await this.hosts.stop(session, why);
        ended++;
      } catch (error) {
        log.warn('could not end a session host', { session: session.id, error: errorMessage(error) });
      }
    }
    log.info('ended the session hosts', { hosts: ended });
    return ended;
  }

  /** Starts queued sessions while there is room under the cap. */
  schedule(): Promise<void> {
    return this.scheduler.run();
  }

  /** Stops watching; hosts keep running on their own. */
  close(): void {
    this.closed = true;
    if (this.memoryTimer !== undefined) clearInterval(this.memoryTimer);
    this.scheduler.close();
    this.workSizes.close();
    this.hosts.close();
  }

  private reschedule(): void {
    if (this.closed) return;
    this.scheduler
      .run()
      .catch((error: unknown) => log.error('schedule failed', { error: errorMessage(error) }));
  }
}

/** CPU time (user and system) in ms. */
function cpuMsOf(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}
