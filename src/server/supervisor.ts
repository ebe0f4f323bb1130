/**
 * The supervisor process: one per user (per BATON_HOME). It only wires services together: the
 * single-instance lock, the token, the store, the session manager and the HTTP server.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { procMemory } from '../capacity/index.js';
import { loadConfig } from '../shared/config.js';
import { errorMessage, SUPERVISOR_EXIT_ALREADY_RUNNING } from '../shared/errors.js';
import { startGitRunner, stopGitRunner, sweepSnapshotFolders } from '../worktrees/index.js';
import { createLogger } from '../shared/log.js';
import { openDb } from '../store/db.js';
import { EvidenceStore } from '../store/evidence.js';
import { createRadar } from '../radar/index.js';
import { announceSupervisorPort, endMcpCalls, McpService } from '../mcp/index.js';
import { sandboxStatus } from '../sandbox/index.js';
import { MergeService, runCheck } from '../merge/index.js';
import { ApprovalService } from '../approvals/index.js';
import { PolicyService } from '../policy/index.js';
import { AttemptService } from '../attempts/index.js';
import { ReviewService, watchGroups } from '../review/index.js';
import { SessionManager } from '../sessions/index.js';
import { radarConflicts, RoutineService, routineSessions, routineTasks } from '../routines/index.js';
import { createTasks } from '../tasks/index.js';
import { UsageTracker } from '../usage/index.js';
import { DesktopNotifier, NotificationChannels, Watchdog } from '../watchdog/index.js';
import { ContextService } from '../context/index.js';
import { SyncService } from '../sync/index.js';
import { KeepFresh } from '../fresh/index.js';
import { ProvenanceService } from '../provenance/index.js';
import { sqliteSettings } from '../settings/index.js';
import { createApp } from './app.js';
import { heartbeatMsOf, joinWorkspace } from './cluster.js';
import { decisionsOf, indexTaskEntries, mcpWorkspace, peersOf, taskLookups } from './wiring.js';
import { BrowserAuth } from './web-auth.js';
import { markPoint } from '../shared/test-points.js';
import { VERSION } from '../shared/version.js';
import type { Booted } from './boot.js';
import { closeListener, holdAt, tellStarter } from './startup.js';
import { checkInSandbox } from './sandboxed-check.js';
import { syncBackoff, taskRecheckMs, watchdogTickMs } from './tuning.js';

/**
 * How long a stop waits for the turn records under way (a snapshot of the worktree and one commit
 * each, well under a second on an idle machine): long enough for a loaded one, short enough that
 * a stuck git does not hold the stop.
 */
const SETTLE_MS = 10_000;

/** Exit code of a supervisor that found another one already running (it lost the start race). */
export const EXIT_ALREADY_RUNNING = SUPERVISOR_EXIT_ALREADY_RUNNING;

export interface SupervisorInfo {
  pid: number;
  port: number;
  startedAt: string;
  version: string;
}

export async function runSupervisor(booted: Booted): Promise<void> {
  const { env, home, paths, lock, gate, server, port, startedAt, startedMs, token } = booted;
  const log = createLogger('supervisor');
  const config = loadConfig(paths.config, env);
  // Checked before the ready message: a bad setting is the start's failure, said to the CLI that
  // started it, not a supervisor that answers and then dies.
  heartbeatMsOf(env);
  const db = openDb(paths.db);
  const info: SupervisorInfo = {
    pid: process.pid,
    port,
    startedAt: startedAt.toISOString(),
    version: VERSION,
  };
  writeFileSync(paths.supervisorJson, JSON.stringify(info));
  // Agents cannot read supervisor.json (their sandbox hides the state folder): each session's door says where we are.
  announceSupervisorPort(home, port);
  log.info('loaded', {
    port,
    maxConcurrent: config.maxConcurrent,
    machine: config.machine.name,
    // Since the process started: the domains loaded and the config read after it listened.
    sinceStart: Math.round(performance.now()),
  });
  let shuttingDown = false;
  // Until the domains are wired, a stop has only the listener, the lock and the database to close.
  let closeAll = (): void => {
    closeListener(server);
    rmSync(paths.supervisorJson, { force: true });
    lock.release();
    db.close();
    process.exit(0);
  };
  let leave: () => Promise<void> = () => Promise.resolve();
  // What must end before the stores close: the turn records under way, bounded (decision 427,
  // "A stop waits for the turn records under way").
  let settle: () => Promise<void> = () => Promise.resolve();
  const shutdown = (): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info('shutting down; session hosts keep running');
    // The shared workspace first (bounded): a command this machine is still running for another
    // finishes on an open database, and none is taken after.
    // A call waiting on a user (`ask_user` at the MCP endpoint) is told to ask again, first.
    void endMcpCalls()
      .then(() => leave())
      .finally(() => settle().finally(() => closeAll()));
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, shutdown);
  // Alone, the starting CLI is told at once. With a shared store it is told once this machine has
  // joined (the health check answers meanwhile): a store it cannot join is the start's failure,
  // said to the CLI that asked for it, naming where the URL came from.
  if (config.store === undefined) tellStarter({ ready: true, port });
  await holdAt('wiring', env);
  const manager = new SessionManager({
    home,
    db,
    maxConcurrent: config.maxConcurrent,
    reviewCapacity: config.reviewCapacity,
    env,
    memory: {
      enabled: config.memory.enabled,
      reserveMb: config.memory.reserveMb,
      footprintMb: config.memory.footprintMb,
      source: procMemory(config.memory.meminfo),
      ...(config.memory.recheckMs === undefined ? {} : { recheckMs: config.memory.recheckMs }),
    },
  });
  // With a shared store: this machine registered and heartbeating, or the start fails here.
  const membership = await joinWorkspace({
    config,
    env,
    capacity: manager.maxConcurrent,
    running: () => manager.activeCount(),
    version: VERSION,
    manager,
    home,
  });
  if (config.store !== undefined) tellStarter({ ready: true, port });
  // Its git processes are started from a small runner, not forked from this process (decision
  // 415); once this start can no longer fail, so a start refused leaves no runner behind.
  void startGitRunner();
  // The other machines behind one port: their sessions compared and grouped here from the work they
  // pushed, brought into merges, replied to; nothing behind it on one machine (decision 210).
  const peers = await peersOf(manager, () => membership.remote(), db, home);
  const radar = createRadar(manager, db, { elsewhere: peers.snapshots });
  // Which turn wrote each line: recorded at turn ends, noted on the commits a merge lands.
  const provenance = new ProvenanceService({
    bus: manager.bus,
    store: new EvidenceStore(db),
    sessions: manager,
    onEvent: (listener) => {
      manager.on('event', listener);
      return () => manager.off('event', listener);
    },
    // Read when a turn ends, long after the context service below is made.
    handoffFrom: (id) => context.handoffsOf(id).from[0]?.from ?? null,
    verify: {
      run: runCheck,
      home,
      env,
      // In the session's sandbox, as its agent ran and as its teardown runs: the trusted command
      // runs the agent's work (decision 271).
      confine: checkInSandbox(home),
    },
  });
  provenance.start();
  const merges = new MergeService({
    home,
    sessions: peers.merges,
    bus: manager.bus,
    db,
    env,
    onLanded: (landing) => provenance.landed(landing),
    reuse: (tree, command) => {
      const run = provenance.reusable(tree, command);
      return run === undefined
        ? undefined
        : {
            sessionId: run.sessionId,
            name: run.name,
            turn: run.turn,
            tree: run.tree,
            at: run.at,
            durationMs: run.durationMs,
            exitCode: run.exitCode,
            outputTail: run.outputTail,
          };
    },
  });
  manager.readEvidenceFrom((id, name) => provenance.mark(id, name));
  const attempts = new AttemptService({
    home,
    db,
    sessions: manager,
    bus: manager.bus,
    merges: () => merges,
    conflicts: () => radar.radar.view(),
    env,
  });
  const review = new ReviewService({
    db,
    bus: manager.bus,
    sessions: () => manager.list(),
    reply: (id, text) => peers.reply(id, text),
    elsewhere: peers.tracked,
  });
  const tasks = createTasks(db, manager.bus, manager, undefined, taskRecheckMs(env));
  // The domains wired to one another (src/server/wiring.ts).
  const context = new ContextService({
    db: manager.search.db,
    search: manager.search,
    sessions: manager,
    bus: manager.bus,
    decisionsFor: decisionsOf(manager, tasks.service),
    elsewhere: peers.transcript,
  });
  const unindex = indexTaskEntries(manager.bus, manager.search, tasks.service);
  // With a shared store, the tasks of repositories with a remote are the workspace's (decision 147):
  // uploaded and read before the dependency gate first looks.
  const sharedTasks = membership.tasks({
    tasks: tasks.service.options.tasks,
    sessions: tasks.service.options.sessions,
    onApplied: (applied) => tasks.watch.synced(applied),
  });
  if (sharedTasks !== undefined) {
    tasks.service.share(sharedTasks);
    await sharedTasks.start().catch((error: unknown) =>
      log.warn('could not share the tasks yet; the next change or reconnect reads them', {
        error: errorMessage(error),
      }),
    );
  }
  // Before the sessions are scheduled: a task's dependency gate and its sessions' context.
  tasks.watch.start();
  // Allow rules and budgets: this machine's, or with a shared store the workspace's (decision 130).
  const settings = membership.settings() ?? sqliteSettings(db);
  // The hosts answer approvals an allow rule covers from a copy of the rules in the state folder
  // (decision 152); the state folder is also one of the user's places the gate guards.
  const approvals = new ApprovalService(manager, settings.allowRules, manager.bus, {
    stateHome: home,
    onChange: (listener) => settings.onChange(listener),
  });
  const policy = new PolicyService(approvals, { stateHome: home });
  const unwatchPolicy = await approvals.watch();
  const unwatchGroups = watchGroups(manager.bus, review, (error) =>
    log.error('review groups refresh failed', { error: errorMessage(error) }),
  );
  // Loaded before re-attaching, so what the hosts wrote meanwhile is counted once, as it is ingested.
  // The user's idleHostSeconds (0: kept) is the idle rule's default; a repository's watchdog.idle overrides it.
  const idleMs = config.idleHostSeconds > 0 ? config.idleHostSeconds * 1000 : undefined;
  const usage = new UsageTracker(db);
  manager.readCostsFrom((id) => usage.ledger.session(id).usd);
  // With a shared store, a day or window budget counts every machine's spend (decision 131).
  const spend = membership.spend({
    mine: () => usage.ledger.series(),
    horizonMs: () => watchdog.budgets.horizonMs(),
  });
  const elsewhere =
    spend === undefined
      ? undefined
      : { spends: () => spend.elsewhere(), onChange: (listener: () => void) => spend.onChange(listener) };
  const watchdog = new Watchdog({
    db,
    bus: manager.bus,
    sessions: manager,
    usage,
    idleMs,
    settings,
    elsewhere,
    continueNote: (sessionId) => attempts.continueNote(sessionId),
    ...taskLookups(manager, tasks.service),
  });
  // The budgets read before the sessions come back and report usage; then the spend they look back on.
  await watchdog.start();
  // Listeners of this start's own, ended at shutdown before the store they use (decision 171).
  const unlisten: (() => void)[] = [];
  if (spend !== undefined) {
    unlisten.push(usage.onEntry((entry) => spend.spent(entry.at)));
    // After the guard has read the budgets again: a longer window widens what is read and published.
    const offBudgets = settings.onChange((table) => {
      if (table === 'budgets')
        void watchdog.budgets.load().then(
          () => spend.horizonChanged(),
          () => {},
        );
    });
    unlisten.push(offBudgets);
    // A store that fails here is tried again by the writes and the next notification.
    await spend
      .start()
      .catch((error: unknown) => log.warn('could not share the spend yet', { error: errorMessage(error) }));
  }
  watchdog.every(watchdogTickMs(env));
  const routines = new RoutineService({
    db,
    bus: manager.bus,
    sessions: routineSessions(manager),
    tasks: routineTasks(tasks.service),
    conflicts: radarConflicts(radar.radar),
    budgetHolds: () => watchdog.budgets.holds(),
    claimFire: (root, routine, key) => membership.routineFire(root, routine, key),
  });
  const notifier = new DesktopNotifier(db, manager.bus, config.notifications, env);
  notifier.start();
  // Before the sessions come back, so a turn that ends as they re-attach is pushed too.
  const sync = new SyncService({
    bus: manager.bus,
    sessions: manager,
    lost: (id) => membership.lost(id),
    ...syncBackoff(env),
  });
  sync.start();
  // Another machine landing one of this machine's sessions has it handed over: committed and pushed now.
  peers.serveHandovers(sync);
  manager.guardRemovals((session, remove) => sync.whileRemoving(session.id, remove));
  // The user's webhook and ntfy topic, each message linking to the session's page here (decision 153).
  const channels = new NotificationChannels(
    manager.bus,
    config.notifications,
    () => `http://127.0.0.1:${port}`,
  );
  channels.start();
  // Idle sessions' branches kept on their moving base; started once the hosts are back (decision 307).
  const fresh = new KeepFresh({
    sessions: {
      list: () => manager.list(),
      whileQuiet: (id, work) => manager.whileQuiet(id, work),
      moveBase: (id, commit) => manager.moveBase(id, commit),
      reply: (id, text) => manager.reply(id, text),
    },
    bus: manager.bus,
    merging: (id) => merges.merging(id),
    ...config.keepFresh,
  });
  manager.setFreshness((id) => fresh.of(id));
  leave = () => membership.leave();
  settle = async () => {
    // Marked for the crash-consistency test, which releases a record it held only once the stop waits.
    if (provenance.pending() > 0) markPoint('shutdown.settling');
    const waited = await provenance.drain(SETTLE_MS);
    if (waited > 0) log.info('waited for turn records before stopping', { records: waited });
  };
  // Shutdown in order: no new request, then every timer, listener and queue, then what they use
  // (the hosts' watches, the database). Nothing is left to fire on a closed store.
  closeAll = (): void => {
    closeListener(server);
    for (const off of unlisten.splice(0)) off();
    sharedTasks?.close();
    radar.close();
    peers.close();
    routines.close();
    tasks.watch.close();
    unindex();
    unwatchPolicy();
    unwatchGroups();
    watchdog.close();
    notifier.close();
    channels.close();
    fresh.stop();
    sync.close();
    provenance.close();
    attempts.close();
    manager.close();
    stopGitRunner();
    rmSync(paths.supervisorJson, { force: true });
    lock.release();
    db.close();
    process.exit(0);
  };

  const app = createApp({
    manager,
    radar: radar.radar,
    merges,
    attempts,
    review,
    routines,
    tasks: tasks.service,
    context,
    mcp: new McpService({
      sessions: manager,
      bus: manager.bus,
      db,
      workspace: mcpWorkspace(context, tasks.service),
    }),
    policy,
    approvals,
    watchdog,
    sync,
    provenance,
    workers: () => membership.view(),
    peers: peers.sessions,
    placing: { machine: membership.machine, placer: () => membership.placer() },
    token,
    port: () => port,
    browserAuth: new BrowserAuth({ port: () => port, file: paths.browserLogins }),
    requestShutdown: shutdown,
    endHosts: async () =>
      void (await manager.endAllHosts('`baton daemon stop --all` ended its host; a reply resumes it')),
    phase: () => gate.phase,
    status: () => {
      const sessions = manager.list();
      const memory = manager.headroom();
      return {
        pid: process.pid,
        port,
        home,
        version: VERSION,
        phase: gate.phase,
        startedAt: startedAt.toISOString(),
        uptimeSeconds: Math.round((performance.now() - startedMs) / 1000),
        maxConcurrent: manager.maxConcurrent,
        active: manager.activeCount(),
        queued: manager.inLine(),
        sessions: sessions.length,
        ...(memory === undefined ? {} : { memory }),
        sandbox: sandboxStatus(),
      };
    },
  });

  // Events stored before the search index existed are indexed once, before sessions come back.
  const backfilled = manager.search.backfill();
  if (backfilled > 0) log.info('search index back-filled', { events: backfilled });
  // Events stored and not yet indexed when the last supervisor stopped are indexed in the
  // background, as newly ingested ones are (decision 312).
  const behind = manager.search.catchUp();
  if (behind > 0) log.info('search index catching up', { sessions: behind });
  // Turns a killed supervisor left unrecorded, before the hosts are re-attached and what they wrote
  // meanwhile is ingested (decision 430).
  const unrecorded = provenance.catchUp();
  if (unrecorded > 0) log.info('recording turns a killed supervisor left unrecorded', { turns: unrecorded });
  // The hosts back before any request is served: what a command reads of a session is then true.
  await manager.reattach();
  fresh.start();
  gate.serve(app.fetch);
  log.info('serving; catching up', { port, sinceStart: Math.round(performance.now()) });
  await catchUp();

  /** What waited while the supervisor was down: queued sessions, missed routines, merges and attempts cut off. */
  async function catchUp(): Promise<void> {
    await manager
      .schedule()
      .catch((error: unknown) => log.error('schedule failed', { error: errorMessage(error) }));
    const swept = sweepSnapshotFolders();
    if (swept > 0) log.info('removed index copies left by processes killed mid-snapshot', { folders: swept });
    // After the sessions are back, so the first pass sees them all.
    radar.start();
    await holdAt('catch-up', env);
    if (shuttingDown) return;
    await routines
      .start()
      .catch((error: unknown) => log.error('routines did not start', { error: errorMessage(error) }));
    await merges
      .recover()
      .catch((error: unknown) => log.error('merge recovery failed', { error: errorMessage(error) }));
    // After the sessions are back: retries and picks the last supervisor left undone.
    await attempts
      .start()
      .catch((error: unknown) => log.error('attempts recovery failed', { error: errorMessage(error) }));
    gate.caughtUp();
    log.info('caught up', { ms: Math.round(performance.now() - startedMs) });
  }
}
