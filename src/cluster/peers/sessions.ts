/**
 * Sessions across machines (decision 126, "Every machine sees every session through the log"): this
 * machine's sessions published to the shared log as they change (their views, coalesced, and their
 * events), the other machines' sessions kept from it, and a reply, approval or stop for another
 * machine's session sent there as a command it runs once with its own session manager; and the
 * workspace bus relayed both ways (decision 135). Loaded only when a store is configured.
 */
import type { SessionView } from '../../api/index.js';
import type { BatonEvent } from '../../events/index.js';
import { BUS_CHANNEL, PgWorkspaceLog } from '../bus.js';
import { COMMAND_CHANNELS, RemoteCommands, type RemoteCommand } from '../commands.js';
import { isConnectionLoss, parseStoreUrl, unreachable } from '../connect.js';
import { KEEP_MS, pruneSharedLog } from '../retention.js';
import { type Listener } from '../listener.js';
import { SessionMirror } from '../mirror.js';
import { WorkspaceRelay } from '../relay.js';
import { type ClusterMember } from '../runtime.js';
import {
  sessionDiff,
  sessionDiffStat,
  sessionFiles,
  type SessionManager,
  sessionUsage,
} from '../../sessions/index.js';
import { AmbiguousSessionError, BatonError, errorMessage, SessionStateError } from '../../shared/errors.js';
import type { SessionWithProject } from '../../store/sessions.js';
import { createLogger } from '../../shared/log.js';
import { retireLanded } from './retire.js';
import { RepoKeys } from './repo-keys.js';

const log = createLogger('cluster');

/** How long a command for another machine may wait for it (it is withdrawn after). */
const COMMAND_TIMEOUT_MS = 15_000;
const PRUNE_EVERY_MS = 24 * 60 * 60_000;
/** How long a read of another machine's session (diff, files, usage) waits for its machine. */
const READ_TIMEOUT_MS = 5_000;
/** Answered commands are kept this long for a look, then pruned. */
const COMMAND_KEEP_MS = 24 * 60 * 60_000;

export interface RemoteSessions {
  readonly machine: string;
  /** Every session of the other machines, each with its machine. */
  list(): SessionView[];
  /** One by id, id prefix or name (exact); undefined when no other machine has it. */
  find(ref: string): SessionView | undefined;
  /**
   * Runs a reply, approval or stop (or a hand-over, retire) on the session's machine; resolves with
   * its answer (the session as it is after, for an action). `answerMs`: how long it may run once taken.
   */
  send(session: SessionView, command: RemoteCommand, options?: { answerMs?: number }): Promise<SessionView>;
  /** Why `machine` is not serving now (stopped, or stopped heartbeating), or undefined while it serves. */
  away(machine: string): string | undefined;
  /** How this machine hands one of its sessions over to another machine's merge (set once its sync runs). */
  serveHandover(handover: (session: SessionWithProject) => Promise<unknown>): void;
  /** A read only the session's machine can answer (its diff, files, usage), with a shorter wait. */
  ask(session: SessionView, command: RemoteCommand): Promise<unknown>;
  /** A session's events after `after` (its own seq), as its machine published them. */
  events(session: SessionView, after: number, limit?: number): Promise<BatonEvent[]>;
  /** Each event, new view and removal of another machine's session as it arrives; returns the unsubscribe. */
  onChange(listener: (change: RemoteChange) => void): () => void;
  close(): Promise<void>;
}

export type RemoteChange =
  | { kind: 'event'; sessionId: string; event: BatonEvent }
  | { kind: 'session'; view: SessionView }
  | { kind: 'removed'; sessionId: string };

/** The process's one LISTEN connection (src/server/cluster.ts) must listen on `SESSION_CHANNELS`; its owner closes it. */
export const SESSION_CHANNELS = [BUS_CHANNEL, ...COMMAND_CHANNELS];

export async function shareSessions(options: {
  member: ClusterMember;
  url: string;
  listener: Listener;
  manager: SessionManager;
  commandTimeoutMs?: number;
  keepMs?: number;
}): Promise<RemoteSessions> {
  const keepMs = options.keepMs ?? KEEP_MS;
  const { member, manager, listener } = options;
  const workspaceLog = new PgWorkspaceLog(member.pool, listener);
  // Each view carries its repository's identity, so another machine finds its own checkout of it.
  const keys = new RepoKeys();
  const localViews = async (): Promise<SessionView[]> => {
    const sessions = manager.list();
    const repos = await Promise.all(sessions.map((s) => keys.of(s.project_root)));
    return sessions.map((s, i) =>
      withRepo({ ...manager.view(s), machine: member.machine }, repos[i] ?? null),
    );
  };
  const mirror = new SessionMirror({ log: workspaceLog, machine: member.machine, localSessions: localViews });
  const commands = new RemoteCommands(member.pool, listener, {
    timeoutMs: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
  });

  /** A store gone away answers `store_unreachable` (503) naming it, not the driver's bare error. */
  const storeGone = (error: unknown): never => {
    // Baton's own errors (a command not taken in time, refused) are answers, not a lost store.
    if (!(error instanceof BatonError) && isConnectionLoss(error))
      throw unreachable(parseStoreUrl(options.url).target, error);
    throw error;
  };
  const published = (what: string) => (error: unknown) =>
    log.warn(`a ${what} did not reach the shared store`, { error: errorMessage(error) });
  const publishSession = (id: string): void => {
    const session = manager.get(id);
    if (session === undefined || session.removed_at !== null) {
      // After any view still waiting for its repository's key, so the removal comes last.
      void keys
        .settled()
        .then(() => mirror.removed(id))
        .catch(published('removal'));
      return;
    }
    const repo = keys.peek(session.project_root);
    // A repository seen for the first time: published once its key is known, as it is then.
    if (repo === undefined) return void keys.of(session.project_root).then(() => publishSession(id));
    void mirror
      .publish(withRepo({ ...manager.view(session), machine: member.machine }, repo))
      .catch(published('session view'));
  };
  const publishEvent = (id: string, event: BatonEvent): void =>
    void mirror.publishEvent(id, event).catch(published('session event'));
  manager.on('session', publishSession);
  manager.on('event', publishEvent);
  const unsubscribe = manager.bus.subscribe((event) => {
    if (event.type === 'session.removed') publishSession(event.data.sessionId);
  });

  await mirror.start();
  // The workspace bus's own events (tasks, merges, alerts…) both ways: streams here show the others'
  // (decision 135).
  const relay = new WorkspaceRelay({
    log: workspaceLog,
    machine: member.machine,
    bus: manager.bus,
    logger: log,
  });
  await relay.start().catch(async (error: unknown) => {
    await Promise.allSettled([relay.close(), mirror.close()]);
    throw error;
  });
  let handover: ((session: SessionWithProject) => Promise<unknown>) | undefined;
  const serving = commands.serve(member.machine, async (command) => {
    const read = await answerRead(manager, command);
    if (read !== undefined) return read.answer;
    if (command.kind === 'handover') {
      if (handover === undefined)
        throw new SessionStateError(`${member.machine} is still starting; try again in a moment.`);
      return handover(manager.resolve(command.sessionId));
    }
    const session = await act(manager, command as Parameters<typeof act>[1]);
    return { ...manager.view(session), machine: member.machine };
  });
  void commands.prune(COMMAND_KEEP_MS).catch(published('prune of old commands'));
  // Retention (decision 142; storeRetentionDays): the shared log and the other machines' events copied
  // here, at start and daily.
  const prune = (): void => {
    void pruneSharedLog(member.pool, keepMs)
      .then((count) => count > 0 && log.info('pruned the shared log', { rows: count }))
      .catch(published('prune of the shared log'));
    const copies = manager.bus.pruneRelayed(new Date(Date.now() - keepMs).toISOString());
    if (copies > 0) log.info("pruned other machines' events copied here", { rows: copies });
  };
  prune();
  const pruning = setInterval(prune, PRUNE_EVERY_MS);
  pruning.unref();

  // Machines not serving: one that stopped heartbeating (presumed dead) has its sessions shown
  // failed, with the reason; one whose supervisor was stopped (it deregistered) has them shown as
  // last seen, not running. Both until it is back: a machine's sessions are its own, and nobody
  // else may change them in the log.
  let away = new Map<string, { failed: boolean; why: string }>();
  const listeners = new Set<(change: RemoteChange) => void>();
  const refresh = async (): Promise<void> => {
    const workers = await member.workers();
    const serving = new Set(workers.map((w) => w.name));
    const before = away;
    away = new Map(
      workers
        .filter((w) => w.stale && w.name !== member.machine)
        .map((w) => [
          w.name,
          {
            failed: true,
            why: `machine ${w.name} stopped heartbeating (last at ${w.heartbeatAt}); its work is on the remote if sync pushed it`,
          },
        ]),
    );
    for (const r of mirror.remoteSessions()) {
      if (!serving.has(r.machine))
        away.set(r.machine, {
          failed: false,
          why: `machine ${r.machine} is not serving (its supervisor was stopped); shown as last seen until it is back`,
        });
    }
    // A machine gone or back: its sessions change on every open board and page.
    const status = (entry: { failed: boolean } | undefined): string =>
      entry === undefined ? 'serving' : entry.failed ? 'lost' : 'stopped';
    const turned = new Set(
      [...before.keys(), ...away.keys()].filter((m) => status(before.get(m)) !== status(away.get(m))),
    );
    if (turned.size === 0) return;
    for (const view of remote())
      if (turned.has(view.machine ?? ''))
        for (const listener of listeners) listener({ kind: 'session', view });
  };
  const overlay = (view: SessionView): SessionView => {
    const gone = away.get(view.machine ?? '');
    if (gone === undefined) return view;
    if (!gone.failed) return { ...view, running: false, activity: gone.why };
    return {
      ...view,
      state: 'failed',
      reason: { kind: 'error', message: gone.why },
      running: false,
      activity: gone.why,
    };
  };
  const remote = (): SessionView[] =>
    mirror
      .remoteSessions()
      .map((r) => overlay({ ...(r.view as unknown as SessionView), machine: r.machine }));
  await refresh().catch(published('look at the workers'));
  const watch = setInterval(
    () => void refresh().catch(published('look at the workers')),
    member.timing.heartbeatMs,
  );
  watch.unref();
  return {
    machine: member.machine,
    list: remote,
    find: (ref) => {
      const sessions = remote();
      const byId = sessions.find((s) => s.id === ref);
      if (byId !== undefined) return byId;
      // Names are unique per machine, not across them.
      const named = sessions.filter((s) => s.name === ref);
      if (named.length > 1)
        throw new AmbiguousSessionError(
          ref,
          named.map((s) => `${s.name} on ${s.machine ?? '?'} (${s.id.slice(0, 8)})`),
        );
      if (named[0] !== undefined) return named[0];
      const byPrefix = ref.length >= 4 ? sessions.filter((s) => s.id.startsWith(ref)) : [];
      if (byPrefix.length > 1)
        throw new AmbiguousSessionError(
          ref,
          byPrefix.map((s) => `${s.name} on ${s.machine ?? '?'}`),
        );
      return byPrefix[0];
    },
    away: (machine) => away.get(machine)?.why,
    serveHandover: (fn) => {
      handover = fn;
    },
    send: async (session, command, sendOptions = {}) =>
      (await commands.send(session.machine, command, sendOptions).catch(storeGone)) as SessionView,
    ask: async (session, command) =>
      commands
        .send(session.machine, command, {
          timeoutMs: Math.min(READ_TIMEOUT_MS, options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS),
          forget: true,
        })
        .catch(storeGone),
    events: async (session, after, limit = 200) =>
      (await mirror.events(session.id, after, limit).catch(storeGone)).map(
        (e) => e.event as unknown as BatonEvent,
      ),
    onChange: (listener) => {
      listeners.add(listener);
      const off = mirror.onChange((change) => {
        if (change.kind === 'event')
          listener({
            kind: 'event',
            sessionId: change.sessionId,
            event: change.event as unknown as BatonEvent,
          });
        else if (change.kind === 'session')
          listener({
            kind: 'session',
            view: overlay({ ...(change.view as unknown as SessionView), machine: change.machine }),
          });
        else listener({ kind: 'removed', sessionId: change.sessionId });
      });
      return () => {
        listeners.delete(listener);
        off();
      };
    },
    close: async () => {
      clearInterval(watch);
      clearInterval(pruning);
      manager.off('session', publishSession);
      manager.off('event', publishEvent);
      unsubscribe();
      await relay.close();
      await serving.close();
      commands.close();
      await mirror.close();
    },
  };
}

function withRepo(view: SessionView, repo: string | null): SessionView {
  return repo === null ? view : { ...view, repo };
}

/** A read for another machine (a session's diff, files, usage), answered as a local request would be; undefined for an action. */
async function answerRead(
  manager: SessionManager,
  command: RemoteCommand,
): Promise<{ answer: unknown } | undefined> {
  switch (command.kind) {
    case 'diff':
      return { answer: await sessionDiff(manager.resolve(command.sessionId)) };
    case 'diffstat':
      return { answer: await sessionDiffStat(manager.resolve(command.sessionId)) };
    case 'files':
      return { answer: await sessionFiles(manager.resolve(command.sessionId)) };
    case 'usage':
      return { answer: sessionUsage(manager, manager.resolve(command.sessionId)) };
    default:
      return undefined;
  }
}

/** An action from another machine, run by this machine's session manager as a local one would be. */
async function act(
  manager: SessionManager,
  command: Exclude<RemoteCommand, { kind: 'diff' | 'diffstat' | 'files' | 'usage' | 'handover' }>,
): Promise<SessionWithProject> {
  switch (command.kind) {
    case 'reply':
      return manager.reply(command.sessionId, command.text);
    case 'approval':
      return manager.resolveApproval(command.sessionId, command.decision, command.reason, command.approvalId);
    case 'stop':
      return manager.stop(command.sessionId);
    case 'retire':
      // Landed by another machine: retired if it is still what was handed over (retire.ts).
      return retireLanded(manager, command);
  }
}
