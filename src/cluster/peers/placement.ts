/**
 * Sessions placed on another machine (decision 128, "`dispatch --on`"). The dispatching side stores the
 * request and the repository's identity (remote URL, base) beside a pg-boss placement and waits
 * for the outcome; every clustered supervisor claims placements while its session manager has
 * free slots, runs each in a local clone of the repository and writes the outcome back. Every
 * supervisor also reaps the placements of machines that stopped heartbeating, and a respawn of
 * such a session places its stored request again from the branch it pushed (decision 129).
 * Loaded only when a store is configured.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { DispatchRequest, type SessionView } from '../../api/index.js';
import {
  ClusterDispatches,
  DISPATCH_ANSWER_CHANNEL,
  type DispatchOutcome,
  type PlacedDispatch,
} from '../dispatches.js';
import { DISPATCH_CHANNEL, Placement } from '../placement.js';
import { DispatchQueuedError, MachineNotFoundError, RemoteCommandFailedError } from '../errors.js';
import { fetchBase, localCloneOf, repositoryIdentity } from '../clones.js';
import {
  fetchBranch,
  fetchSnapshot,
  pushedWork,
  reapEvery,
  remoteHasBranch,
  RESPAWN_SNAPSHOT,
  Respawns,
} from '../respawn.js';
import { type Listener } from '../listener.js';
import { WorkerRegistry } from '../workers.js';
import { type ClusterMember } from '../runtime.js';
import type { SessionManager } from '../../sessions/index.js';
import type { SessionWithProject } from '../../store/sessions.js';
import {
  BatonError,
  errorMessage,
  InvalidInputError,
  isErrorCode,
  SessionStateError,
} from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import { adoptPlacedHere, holdings, resumeGuard } from './holdings.js';

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
  /**
   * Places again, here while this machine has a free slot, else on any machine, another machine's
   * session whose placement was reaped (its machine stopped heartbeating), continuing the branch
   * it pushed to the remote when there is one.
   */
  respawn(view: SessionView, on?: string): Promise<Placed>;
  /** True for a session of this machine stopped because another machine holds it now (the fence). */
  lost(sessionId: string): boolean;
  /**
   * A session dispatched here (a free slot) recorded as placed here, so another machine can
   * respawn it if this one dies; one whose repository has no remote, or that works on this
   * checkout (--in-place, --carry-changes), stays this machine's. Never throws: a store that
   * fails leaves the session running, not respawnable elsewhere, and logs it.
   */
  recordLocal(session: SessionWithProject, request: Request): Promise<void>;
  close(): Promise<void>;
}

/** The process's one LISTEN connection (src/server/cluster.ts) must listen on these; its owner closes it. */
export const PLACEMENT_CHANNELS = [DISPATCH_CHANNEL, DISPATCH_ANSWER_CHANNEL];

export interface PlacementOptions {
  member: ClusterMember;
  url: string;
  listener: Listener;
  manager: SessionManager;
  /** BATON_HOME: clones of repositories this machine had no checkout of go under `clones/`. */
  home: string;
  /** How long a dispatch waits for a machine to start it. */
  timeoutMs: number;
  /** The reaper's timer (every heartbeat interval); a `setInterval` by default, driven by hand in tests. */
  every?: (ms: number, tick: () => void) => () => void;
}

export async function startPlacement(options: PlacementOptions): Promise<Placer> {
  const { member, manager } = options;
  const { listener } = options;
  const placement = await Placement.start({ url: options.url, pool: member.pool });
  const dispatches = new ClusterDispatches(member.pool, listener);
  const respawns = new Respawns(member.pool);
  const registry = new WorkerRegistry(member.pool, member.timing);
  void dispatches.prune(DISPATCH_KEEP_MS).catch(warn('pruning old dispatches'));
  /** This machine's sessions that were placed here: local session id → placement id. */
  const placedHere = new Map<string, string>();

  const runPlaced = async (placementId: string): Promise<void> => {
    const outcome = await startHere(placementId).catch((error: unknown): DispatchOutcome => {
      log.warn('a session placed here could not start', { placementId, error: errorMessage(error) });
      void claimer.release(placementId).catch(warn('freeing the placement'));
      return {
        kind: 'failed',
        machine: member.machine,
        error: { code: error instanceof BatonError ? error.code : 'internal', message: errorMessage(error) },
      };
    });
    await dispatches.answer(placementId, outcome).catch(warn('answering the dispatching machine'));
  };

  const startHere = async (placementId: string): Promise<DispatchOutcome> => {
    const dispatch = await dispatches.get(placementId);
    if (dispatch === undefined)
      throw new InvalidInputError(`The dispatch ${placementId} was not found in the store.`);
    // Claimed by the machine it was dispatched on (its slot freed): the folder it came from is here.
    const origin =
      dispatch.origin === member.machine && typeof dispatch.request.cwd === 'string'
        ? [dispatch.request.cwd]
        : [];
    const knownRoots = [...new Set([...origin, ...manager.list().map((s) => s.project_root)])];
    const root = await localCloneOf({
      url: dispatch.url,
      project: dispatch.project,
      home: options.home,
      knownRoots,
    });
    const commit = await fetchBase(root, dispatch.url, dispatch.base, placementId);
    // A respawn continues the branch the session pushed: it starts from that branch's tip, not the
    // base, with the snapshot of its uncommitted work (if one was pushed) laid over it.
    const { [RESPAWN_SNAPSHOT]: snapshot, ...request } = dispatch.request;
    const branch = typeof request.branch === 'string' ? request.branch : undefined;
    if (branch !== undefined) await fetchBranch(root, dispatch.url, branch);
    const work =
      snapshot === undefined || branch === undefined
        ? undefined
        : await fetchSnapshot(root, dispatch.url, snapshot, branch);
    // Fetched as a commit, the base keeps the name it has on the remote (where a merge lands it).
    const session = await manager.dispatch(
      DispatchRequest.parse({ ...request, cwd: root, ...(branch === undefined ? { base: commit } : {}) }),
      work,
      branch === undefined ? dispatch.base : undefined,
    );
    placedHere.set(session.id, placementId);
    log.info('started a session placed here', {
      placementId,
      sessionId: session.id,
      from: dispatch.origin,
      root,
    });
    return {
      kind: 'started',
      machine: member.machine,
      sessionId: session.id,
      session: { ...manager.view(session), machine: member.machine },
    };
  };

  const claimer = placement.claimer({
    worker: member.machine,
    incarnation: () => member.incarnation(),
    capacity: manager.maxConcurrent,
    free: () => manager.freeSlots(),
    listener,
    onPlaced: runPlaced,
  });

  // After a restart: what still runs here is held again, the rest failed for a respawn (decision 136).
  const lost = new Set<string>();
  const held = { member, manager, placement, dispatches, respawns, claimer, placedHere, lost };
  await adoptPlacedHere(held).catch(warn('taking back the placements of sessions still running here'));
  // From now on each heartbeat sends what runs here, and its fence stops what is no longer ours;
  // a session placed here starts again here only while (or once more) it is ours.
  member.hold(holdings(held));
  manager.guardResumes(resumeGuard(held));

  // Every machine reaps; the UPDATE lets one report each session. Reaped placements stay failed,
  // with the reason, until someone respawns them.
  const stopReaping = reapEvery({
    placement,
    registry,
    ms: member.timing.heartbeatMs,
    ...(options.every === undefined ? {} : { every: options.every }),
    onReaped: (reaped) => {
      for (const r of reaped)
        log.warn('a placed session was lost with its machine; `baton respawn` places it again', {
          placementId: r.sessionId,
          machine: r.worker,
          reason: r.reason,
        });
    },
    onError: warn('reaping the placements of machines that stopped heartbeating'),
  });

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

  /** Stores the dispatch beside a new placement for `on` and waits for the machine that starts it. */
  const enqueue = async (dispatch: PlacedDispatch, on: string): Promise<Placed> => {
    await dispatches.create(dispatch);
    await placement.dispatch({ sessionId: dispatch.placementId, on }).catch(async (error: unknown) => {
      await dispatches.remove(dispatch.placementId).catch(() => {});
      throw error;
    });
    log.info('placed a dispatch', {
      placementId: dispatch.placementId,
      on,
      url: dispatch.url,
      base: dispatch.base,
    });
    const outcome = await dispatches.waitForOutcome(dispatch.placementId, options.timeoutMs);
    if (outcome === undefined) throw new DispatchQueuedError(on, options.timeoutMs);
    if (outcome.kind === 'failed') {
      throw new RemoteCommandFailedError(
        outcome.machine,
        isErrorCode(outcome.error.code) ? outcome.error.code : 'internal',
        `The machine "${outcome.machine}" could not start the session: ${outcome.error.message}`,
      );
    }
    return {
      session: { ...(outcome.session as SessionView), machine: outcome.machine },
      mainCheckout: { changedFiles: 0, carried: false },
      warnings: [],
    };
  };

  const respawn = async (view: SessionView, onMachine?: string): Promise<Placed> => {
    const machine = view.machine ?? '?';
    if (onMachine !== undefined && onMachine !== member.machine) {
      const workers = (await member.workers()).map((w) => w.name);
      if (!workers.includes(onMachine)) throw new MachineNotFoundError(onMachine, workers);
    }
    if (view.state !== 'failed') {
      throw new SessionStateError(
        `Session ${view.name} runs on ${machine} and is ${view.state.replace(/_/g, ' ')}: respawn places elsewhere only a session whose machine stopped heartbeating.`,
        { machine },
      );
    }
    // Shown failed because its machine is stale: reap now rather than wait for the timer.
    await placement.reap(registry, { staleOnly: true });
    const taken = await respawns.take(machine, view.id, member.machine);
    if (taken.kind === 'not_placed') {
      throw new SessionStateError(
        `Session ${view.name} was started on ${machine} from that machine's own checkout (a repository with no remote, --in-place or --carry-changes), so no other machine can start it again. Its pushed work, if any, is on the remote: \`baton sync restore ${view.name}\` in a clone of it brings its branch back.`,
        { machine },
      );
    }
    if (taken.kind === 'not_failed') {
      const why =
        taken.state === 'finished'
          ? `its placement is finished${taken.reason === null ? '' : ` (${taken.reason})`}`
          : `${machine} still holds it (its placement is ${taken.state}; respawn it on ${machine})`;
      throw new SessionStateError(
        `Session ${view.name} cannot be respawned elsewhere: ${why}. Only a session whose machine stopped heartbeating is placed again.`,
        { machine },
      );
    }
    const { dispatch } = taken;
    try {
      const { branch, snapshot } = await pushedWork(options.home, dispatch.url, view.name, view.id);
      const laid = branch !== undefined && snapshot !== undefined;
      const request = {
        ...dispatch.request,
        name: view.name,
        ...(branch === undefined ? {} : { branch }),
        ...(laid ? { [RESPAWN_SNAPSHOT]: snapshot } : {}),
      };
      const warnings =
        branch === undefined
          ? [
              `the remote has no branch baton/${view.name} (nothing was pushed), so ${view.name} starts fresh from ${dispatch.base}`,
            ]
          : [];
      if (laid)
        warnings.push(
          `the uncommitted work ${machine} pushed at ${view.name}'s last turn end (snapshot ${snapshot.commit.slice(0, 10)}) is laid over the new worktree as uncommitted changes`,
        );
      // `any` as a dispatch means it: here while this machine has a free slot, else the first machine with one.
      const on = onMachine ?? (manager.freeSlots() > 0 ? member.machine : 'any');
      const placed = await enqueue({ ...dispatch, placementId: randomUUID(), request }, on);
      log.info('respawned a session of a machine that stopped heartbeating', {
        sessionId: view.id,
        from: machine,
        to: placed.session.machine,
        branch: branch ?? null,
        snapshot: laid ? snapshot.commit : null,
      });
      return { ...placed, warnings };
    } catch (error) {
      // Queued (no machine took it in time) is placed all the same; anything else can be tried again.
      if (!(error instanceof DispatchQueuedError))
        await respawns
          .giveBack(dispatch.placementId, taken.reason)
          .catch(warn('giving the failed placement back'));
      throw error;
    }
  };

  const recordLocal = async (session: SessionWithProject, request: Request): Promise<void> => {
    if (request.inPlace === true || request.carryChanges === true) return;
    const identity = await repositoryIdentity(request.cwd, request.base).catch(() => undefined);
    if (identity === undefined) return;
    const stored: Record<string, unknown> = { ...request, name: session.name };
    delete stored.base;
    const placementId = randomUUID();
    try {
      const view = { ...manager.view(session), machine: member.machine };
      await dispatches.recordHere(
        { placementId, origin: member.machine, request: stored, ...identity },
        { machine: member.machine, incarnation: member.incarnation(), sessionId: session.id, session: view },
      );
      // Held like a claimed placement: sent with each heartbeat (so its fence stops a copy that
      // was respawned elsewhere), and finished when the session completes or is removed.
      placedHere.set(session.id, placementId);
      claimer.running.add(placementId);
      onSession(session.id);
    } catch (error) {
      log.warn(
        'a session dispatched here could not be recorded in the store; only this machine can start it again',
        { session: session.name, error: errorMessage(error) },
      );
    }
  };

  return {
    respawn,
    recordLocal,
    lost: (sessionId) => lost.has(sessionId),
    place: async (request, on) => {
      const local =
        request.inPlace === true
          ? '--in-place'
          : request.carryChanges === true
            ? '--carry-changes'
            : undefined;
      if (local !== undefined) {
        throw new InvalidInputError(
          `${local} works on this machine's checkout, so it cannot go with a session placed on another machine: add --on ${member.machine}.`,
          { key: 'on', value: on },
        );
      }
      if (on !== 'any') {
        const workers = (await member.workers()).map((w) => w.name);
        if (!workers.includes(on)) throw new MachineNotFoundError(on, workers);
      }
      const identity = await repositoryIdentity(request.cwd, request.base);
      // A branch goes where the session runs through the remote: the claiming machine fetches it.
      if (
        request.branch !== undefined &&
        !(await remoteHasBranch(request.cwd, identity.url, request.branch))
      ) {
        throw new InvalidInputError(
          `--branch ${request.branch} is not on the remote (${identity.url}), so another machine cannot check it out: push it first (git push origin ${request.branch}), or add --on ${member.machine}.`,
          { key: 'branch', value: request.branch },
        );
      }
      // The base is fetched by name where it runs; `cwd` means something only if that is here.
      const stored: Record<string, unknown> = { ...request };
      delete stored.base;
      return enqueue({ placementId: randomUUID(), origin: member.machine, request: stored, ...identity }, on);
    },
    close: async () => {
      stopReaping();
      manager.guardResumes(undefined);
      manager.off('session', onSession);
      unsubscribe();
      await claimer.close().catch(() => {});
      await placement.stop().catch(warn('stopping pg-boss'));
    },
  };
}

function warn(what: string) {
  return (error: unknown): void => log.warn(`${what} failed`, { error: errorMessage(error) });
}
