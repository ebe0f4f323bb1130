/**
 * Sessions placed on another machine (issue 20, decision 128). The dispatching side stores the
 * request and the repository's identity (remote URL, base) beside a pg-boss placement and waits
 * for the outcome; every clustered supervisor claims placements while its session manager has
 * free slots, runs each in a local clone of the repository and writes the outcome back. Loaded
 * only when a store is configured.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { DispatchRequest, type SessionView } from '../api/index.js';
import {
  ClusterDispatches,
  DISPATCH_ANSWER_CHANNEL,
  DISPATCH_CHANNEL,
  DispatchQueuedError,
  fetchBase,
  Listener,
  localCloneOf,
  MachineNotFoundError,
  Placement,
  RemoteCommandFailedError,
  repositoryIdentity,
  type ClusterMember,
  type DispatchOutcome,
} from '../cluster/index.js';
import type { SessionManager } from '../sessions/manager.js';
import { BatonError, errorMessage, InvalidInputError, isErrorCode } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';

const log = createLogger('cluster.placement');
/** Answered dispatches are kept this long for a look, then pruned at a supervisor's start. */
const DISPATCH_KEEP_MS = 7 * 24 * 60 * 60_000;

type Request = z.output<typeof DispatchRequest>;

export interface Placed {
  session: SessionView;
  mainCheckout: { changedFiles: number; carried: boolean };
  warnings: string[];
}

export interface Placer {
  /** Queues `request` for `on` (`any` or another machine) and resolves once a machine has started it. */
  place(request: Request, on: string): Promise<Placed>;
  close(): Promise<void>;
}

export interface PlacementOptions {
  member: ClusterMember;
  url: string;
  manager: SessionManager;
  /** BATON_HOME: clones of repositories this machine had no checkout of go under `clones/`. */
  home: string;
  /** How long a dispatch waits for a machine to start it. */
  timeoutMs: number;
}

export async function startPlacement(options: PlacementOptions): Promise<Placer> {
  const { member, manager } = options;
  const listener = new Listener(options.url, [DISPATCH_CHANNEL, DISPATCH_ANSWER_CHANNEL]);
  await listener.start();
  const placement = await Placement.start({ url: options.url, pool: member.pool }).catch(async (error: unknown) => {
    await listener.close();
    throw error;
  });
  const dispatches = new ClusterDispatches(member.pool, listener);
  void dispatches.prune(DISPATCH_KEEP_MS).catch(warn('pruning old dispatches'));
  /** This machine's sessions that were placed here: local session id → placement id. */
  const placedHere = new Map<string, string>();

  const runPlaced = async (placementId: string): Promise<void> => {
    const outcome = await startHere(placementId).catch((error: unknown): DispatchOutcome => {
      log.warn('a session placed here could not start', { placementId, error: errorMessage(error) });
      void claimer.release(placementId).catch(warn('freeing the placement'));
      return { kind: 'failed', machine: member.machine, error: { code: error instanceof BatonError ? error.code : 'internal', message: errorMessage(error) } };
    });
    await dispatches.answer(placementId, outcome).catch(warn('answering the dispatching machine'));
  };

  const startHere = async (placementId: string): Promise<DispatchOutcome> => {
    const dispatch = await dispatches.get(placementId);
    if (dispatch === undefined) throw new InvalidInputError(`The dispatch ${placementId} was not found in the store.`);
    // Claimed by the machine it was dispatched on (its slot freed): the folder it came from is here.
    const origin = dispatch.origin === member.machine && typeof dispatch.request.cwd === 'string' ? [dispatch.request.cwd] : [];
    const knownRoots = [...new Set([...origin, ...manager.list().map((s) => s.project_root)])];
    const root = await localCloneOf({ url: dispatch.url, project: dispatch.project, home: options.home, knownRoots });
    const commit = await fetchBase(root, dispatch.url, dispatch.base, placementId);
    const session = await manager.dispatch(DispatchRequest.parse({ ...dispatch.request, cwd: root, base: commit }));
    placedHere.set(session.id, placementId);
    log.info('started a session placed here', { placementId, sessionId: session.id, from: dispatch.origin, root });
    return { kind: 'started', machine: member.machine, sessionId: session.id, session: { ...manager.view(session), machine: member.machine } };
  };

  /** After a restart: the placements of sessions this machine still runs are held by this incarnation. */
  async function adoptPlacedHere(): Promise<void> {
    const started = await dispatches.startedOn(member.machine);
    const running = [...started].filter(([, sessionId]) => {
      const session = manager.get(sessionId);
      return session !== undefined && session.removed_at === null && session.state !== 'completed';
    });
    const adopted = new Set(await placement.adopt(running.map(([placementId]) => placementId), member.machine, member.incarnation()));
    for (const [placementId, sessionId] of running) {
      if (!adopted.has(placementId)) continue;
      placedHere.set(sessionId, placementId);
      claimer.running.add(placementId);
    }
    if (adopted.size > 0) log.info('took back the placements of sessions still running here', { count: adopted.size });
  }

  const claimer = placement.claimer({
    worker: member.machine,
    incarnation: () => member.incarnation(),
    capacity: manager.maxConcurrent,
    free: () => manager.freeSlots(),
    listener,
    onPlaced: runPlaced,
  });

  await adoptPlacedHere().catch(warn('taking back the placements of sessions still running here'));

  // A placed session that completes or is removed gives its placement back, so the store shows it done.
  const onSession = (id: string): void => {
    const placementId = placedHere.get(id);
    if (placementId === undefined) return;
    const session = manager.get(id);
    if (session !== undefined && session.removed_at === null && session.state !== 'completed') return;
    placedHere.delete(id);
    void claimer.release(placementId).catch(warn('finishing the placement'));
  };
  manager.on('session', onSession);
  // A slot freed here (a turn ended, a session stopped or removed) takes queued work at once, not at the next poll.
  const claimIfFree = (): void => {
    if (manager.freeSlots() > 0) void claimer.claim().catch(warn('claiming dispatches'));
  };
  const unsubscribe = manager.bus.subscribe((event) => {
    if (event.type === 'session.removed') onSession(event.data.sessionId);
    if (event.type === 'session.removed' || event.type === 'session.state_changed') claimIfFree();
  });

  return {
    place: async (request, on) => {
      const local = request.inPlace === true ? '--in-place' : request.carryChanges === true ? '--carry-changes' : request.branch !== undefined ? '--branch' : undefined;
      if (local !== undefined) {
        throw new InvalidInputError(`${local} works on this machine's checkout, so it cannot go with a session placed on another machine: add --on ${member.machine}.`, { key: 'on', value: on });
      }
      if (on !== 'any') {
        const workers = (await member.workers()).map((w) => w.name);
        if (!workers.includes(on)) throw new MachineNotFoundError(on, workers);
      }
      const identity = await repositoryIdentity(request.cwd, request.base);
      const placementId = randomUUID();
      // The base is fetched by name where it runs; `cwd` means something only if that is here.
      const stored: Record<string, unknown> = { ...request };
      delete stored.base;
      await dispatches.create({ placementId, origin: member.machine, request: stored, ...identity });
      await placement.dispatch({ sessionId: placementId, on }).catch(async (error: unknown) => {
        await dispatches.remove(placementId).catch(() => {});
        throw error;
      });
      log.info('placed a dispatch', { placementId, on, url: identity.url, base: identity.base });
      const outcome = await dispatches.waitForOutcome(placementId, options.timeoutMs);
      if (outcome === undefined) throw new DispatchQueuedError(on, options.timeoutMs);
      if (outcome.kind === 'failed') {
        throw new RemoteCommandFailedError(outcome.machine, isErrorCode(outcome.error.code) ? outcome.error.code : 'internal', `The machine "${outcome.machine}" could not start the session: ${outcome.error.message}`);
      }
      return { session: { ...(outcome.session as SessionView), machine: outcome.machine }, mainCheckout: { changedFiles: 0, carried: false }, warnings: [] };
    },
    close: async () => {
      manager.off('session', onSession);
      unsubscribe();
      await claimer.close().catch(() => {});
      await placement.stop().catch(warn('stopping pg-boss'));
      await listener.close();
    },
  };
}

function warn(what: string) {
  return (error: unknown): void => log.warn(`${what} failed`, { error: errorMessage(error) });
}
