/**
 * What this machine holds in the shared store, and what it lets go (decision 136, "A machine that lost
 * its placements lets them go"). At start it takes back the placements of the sessions it still runs
 * and fails the rest, so another machine can respawn them; with every heartbeat it sends the placements
 * it runs, and a session whose placement the store says is no longer its own (reaped while this machine
 * was cut off or frozen) is taken back when nobody respawned it, else stopped here, its worktree and
 * transcript kept: two agents writing one branch is the worst outcome. Loaded only when a store is
 * configured.
 */
import type { Claimer, Placement } from '../placement.js';
import type { ClusterDispatches } from '../dispatches.js';
import type { ClusterMember, Holdings } from '../runtime.js';
import type { Respawns } from '../respawn.js';
import { ACTIVE_STATES, type ResumeGuard, type SessionManager } from '../../sessions/index.js';
import type { SessionWithProject } from '../../store/sessions.js';
import { BatonError, errorMessage, SessionStateError } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';

const log = createLogger('cluster.placement');

export interface HoldingsInput {
  member: ClusterMember;
  manager: SessionManager;
  placement: Placement;
  dispatches: ClusterDispatches;
  respawns: Respawns;
  claimer: Claimer;
  /** This machine's sessions that were placed here: local session id → placement id. */
  placedHere: Map<string, string>;
  /** Sessions stopped here because another machine holds them now: never pushed from here again. */
  lost: Set<string>;
}

/**
 * After a (re)start: the placements of sessions this machine still runs are held by this
 * incarnation; the others still `placed` on an earlier one fail now, with the reason. Runs here
 * means: its host is alive, or it has none to lose (it ended cleanly: stopped, or its idle agent
 * let go). A recorded host that is gone died with the machine (a reboot): the re-attachment about
 * to run records that session failed, and its placement is better respawned than left held.
 */
export async function adoptPlacedHere(input: HoldingsInput): Promise<void> {
  const { member, manager, placement, placedHere, claimer } = input;
  const started = await input.dispatches.startedOn(member.machine);
  const running = [...started].filter(([, sessionId]) => {
    const session = manager.get(sessionId);
    if (session === undefined || session.removed_at !== null || session.state === 'completed') return false;
    return (
      manager.isRunning(session) || (session.host_pid === null && !ACTIVE_STATES.includes(session.state))
    );
  });
  const adopted = new Set(
    await placement.adopt(
      running.map(([placementId]) => placementId),
      member.machine,
      member.incarnation(),
    ),
  );
  for (const [placementId, sessionId] of running) {
    if (!adopted.has(placementId)) continue;
    placedHere.set(sessionId, placementId);
    claimer.running.add(placementId);
  }
  if (adopted.size > 0)
    log.info('took back the placements of sessions still running here', { count: adopted.size });
  // Lost before this restart (respawned elsewhere): still never pushed, nor started, from here.
  for (const [placementId, sessionId] of started) {
    if (adopted.has(placementId) || manager.get(sessionId) === undefined) continue;
    const now = await placement.placementOf(placementId);
    if (now === undefined) continue;
    if (
      (now.state === 'placed' && now.worker !== member.machine) ||
      (now.state === 'finished' && (now.reason ?? '').startsWith('respawned by'))
    )
      input.lost.add(sessionId);
  }
  const failed = await input.respawns.failLeftBehind(member.machine, member.incarnation());
  for (const f of failed)
    log.warn('a placed session did not survive this machine’s restart; `baton respawn` places it again', {
      placementId: f.placementId,
      reason: f.reason,
    });
}

/**
 * What the heartbeats send and how their fence is acted on. A fenced placement that is only
 * `failed` (reaped while this machine was away, not respawned yet) is taken back: nobody else runs
 * it, and once it is `placed` here again no respawn can take it. One taken by a respawn, or gone,
 * has its session stopped here.
 */
export function holdings(input: HoldingsInput): Holdings {
  const { member, manager, placement, respawns, placedHere, claimer, lost } = input;
  /** Fenced placements being settled: a heartbeat meanwhile fences them again. */
  const settling = new Set<string>();

  const settle = async (placementId: string): Promise<void> => {
    const sessionId = [...placedHere].find(([, held]) => held === placementId)?.[0];
    const now = await respawns.takeBack(placementId, member.machine, member.incarnation());
    if (now === undefined) {
      log.warn(
        'took back a placement reaped while this machine was away (no other machine had respawned it)',
        { placementId, sessionId: sessionId ?? null },
      );
      return;
    }
    // Finished here meanwhile (the session completed): nothing to let go.
    if (!claimer.running.delete(placementId)) return;
    if (sessionId !== undefined) {
      placedHere.delete(sessionId);
      // Before the stop: the turn end it makes must not push this copy's branch over the respawn's.
      lost.add(sessionId);
    }
    const why = `it is ${now.state}${now.reason === null ? '' : `: ${now.reason}`}`;
    const reason = `stopped on ${member.machine}: this machine no longer holds the session's placement (${why}); another machine may run it now. Its worktree and transcript are kept here.`;
    log.warn('stopping a session whose placement this machine no longer holds', {
      placementId,
      sessionId: sessionId ?? null,
      placement: now.state,
      reason: now.reason,
    });
    if (sessionId !== undefined) await manager.halt(sessionId, reason);
  };

  return {
    held: () => [...claimer.running],
    rejoined: async (incarnation) => {
      const adopted = await placement.adopt([...claimer.running], member.machine, incarnation);
      log.info('took back the placements still held after registering again', {
        incarnation,
        count: adopted.length,
        of: claimer.running.size,
      });
    },
    fenced: (placementIds) => {
      for (const placementId of placementIds) {
        if (!claimer.running.has(placementId) || settling.has(placementId)) continue;
        settling.add(placementId);
        settle(placementId)
          .catch((error: unknown) =>
            log.warn('acting on the fence failed; the next heartbeat tries again', {
              placementId,
              error: errorMessage(error),
            }),
          )
          .finally(() => settling.delete(placementId));
      }
    },
  };
}

/**
 * A session placed here that starts again here (a respawn, a reply that resumes it) takes its
 * placement back first, so no respawn elsewhere runs beside it; one whose placement another
 * machine took is refused, since it runs there now. Sessions dispatched here, not placed, pass.
 * With the store out of reach, one known to be placed here waits for it; any other passes.
 */
export function resumeGuard(
  input: Pick<HoldingsInput, 'dispatches' | 'respawns' | 'placedHere' | 'lost'> & {
    member: Pick<ClusterMember, 'machine' | 'incarnation'>;
    claimer: Pick<Claimer, 'running'>;
  },
): ResumeGuard {
  const { member, dispatches, respawns, placedHere, claimer, lost } = input;
  const takeBack = async (session: SessionWithProject): Promise<void> => {
    const placementId =
      placedHere.get(session.id) ?? (await dispatches.placementOf(member.machine, session.id));
    if (placementId === undefined) return;
    const taken = await respawns.takeBack(placementId, member.machine, member.incarnation());
    if (taken !== undefined) {
      const why = `its placement is ${taken.state}${taken.reason === null ? '' : ` (${taken.reason})`}`;
      throw new SessionStateError(
        `Session ${session.name} cannot start again on ${member.machine}: another machine holds it now, ${why}. Work with it there; its worktree here is kept as it was.`,
        { machine: member.machine },
      );
    }
    placedHere.set(session.id, placementId);
    claimer.running.add(placementId);
    lost.delete(session.id);
  };
  return async (session) => {
    try {
      await takeBack(session);
    } catch (error) {
      if (error instanceof BatonError) throw error;
      if (placedHere.has(session.id) || lost.has(session.id)) {
        throw new SessionStateError(
          `Session ${session.name} was placed on ${member.machine} through the shared store, which could not be asked whether another machine runs it now (${errorMessage(error)}); try again once the store is back.`,
          { machine: member.machine },
        );
      }
      log.warn(
        'the shared store could not be asked about a session starting again here; taken as this machine’s own',
        { sessionId: session.id, error: errorMessage(error) },
      );
    }
  };
}
