/** Sessions: thin calls to the SessionManager, answered as views. */
import type { SESSIONS } from '../../api/sessions.js';
import type { ApprovalService } from '../../approvals/index.js';
import type { AgentChoice } from '../../doctor/index.js';
import type { SessionManager } from '../../sessions/index.js';
import { checkWorkerName } from '../../shared/cluster-settings.js';
import { InvalidInputError, SessionStateError } from '../../shared/errors.js';
import type { SessionWithProject } from '../../store/sessions.js';
import type { PeerSessions, Placer } from '../../cluster/index.js';
import type { Handlers } from './mount.js';
import { NO_PEER_SESSIONS, targetOf } from './remote-sessions.js';

/** What a dispatch of this agent is warned of (the watchdog's budgets and windows); none without a watchdog. */
export type DispatchWarnings = (session: { agent: string }) => string[];

/** Where a dispatch may run: this machine (by name), and other machines when the workspace is shared. */
export interface Placing {
  machine: string;
  placer: () => Placer | undefined;
}

/**
 * `peers`: the other machines' sessions (decision 127, "A shared workspace in the supervisor"), none on
 * one machine; a session found there is shown, peeked and answered through its machine.
 */
export function sessionHandlers(
  manager: SessionManager,
  approvals: ApprovalService,
  warnings: DispatchWarnings = () => [],
  peers: PeerSessions = NO_PEER_SESSIONS,
  placing?: Placing,
  /** The agent of a dispatch that names none (decision 185); throws naming the fix. */
  chooseAgent: () => AgentChoice = () => {
    throw new InvalidInputError('Name the agent to run: --agent claude, codex or scripted.');
  },
): Handlers<typeof SESSIONS> {
  const view = (session: SessionWithProject) => {
    const machine = peers.machine;
    return machine === undefined ? manager.view(session) : { ...manager.view(session), machine };
  };
  const envelope = (session: SessionWithProject) => ({ session: view(session) });
  const target = (ref: string, cwd: string | undefined) => targetOf(manager, peers, ref, cwd);
  return {
    'GET /api/sessions': ({ query: { project, removed } }) => {
      const mine = (s: SessionWithProject): boolean =>
        project === undefined || s.project_root === project || s.project_name === project;
      const sessions = manager.list().filter(mine);
      const headroom = manager.headroom();
      const others = peers
        .list()
        .filter((s) => project === undefined || s.projectRoot === project || s.project === project);
      return {
        sessions: [...sessions.map(view), ...others],
        reviewQueue: manager.workSizes.reviewQueue(sessions),
        ...(headroom === undefined ? {} : { memory: headroom }),
        ...(removed
          ? {
              removed: manager
                .listRemoved()
                .filter(mine)
                .map((s) => ({
                  ...manager.view(s),
                  removedAt: s.removed_at ?? '',
                  snapshotRef: s.snapshot_ref,
                })),
            }
          : {}),
      };
    },
    'POST /api/sessions': async ({ body: { on: target, agent: named, ...rest } }) => {
      const chosen = named === undefined ? chooseAgent() : undefined;
      const body = { ...rest, agent: named ?? chosen!.agent };
      const agentChosen = chosen === undefined ? {} : { agentChosen: chosen.note };
      const on = target === undefined || target === 'any' ? 'any' : checkWorkerName(target, 'on');
      const here = placing?.machine;
      const placer = placing?.placer();
      if (placer === undefined && on !== 'any' && on !== here) {
        throw new InvalidInputError(
          `This machine is not clustered (no store is configured), so it cannot place a session on "${on}": dispatch without --on, or start the supervisor with --store to share a workspace.`,
          { key: 'on', value: on },
        );
      }
      // Shared: `any` runs here while this machine has a free slot, elsewhere once it has none.
      const elsewhere = on === 'any' ? manager.freeSlots() === 0 : on !== here;
      if (placer !== undefined && elsewhere) return { ...(await placer.place(body, on)), ...agentChosen };
      // Judged as the work starts, before the new session's own first report counts.
      const warned = warnings({ agent: body.agent });
      const { session, mainCheckout } = await manager.dispatchWithNotes(body);
      // Shared workspace: recorded as placed here, so another machine can respawn it if this one
      // dies; in the background, so a store that is slow or away never holds a local dispatch up.
      void placer?.recordLocal(session, body);
      return { ...envelope(session), mainCheckout, warnings: warned, ...agentChosen };
    },
    'POST /api/sessions/respawn-all': async ({ body }) => {
      const sessions = await manager.respawnAll(body.project);
      return { sessions: sessions.map((s) => manager.view(manager.resolve(s.id))) };
    },
    'POST /api/dangerous-mode/accept': async ({ body }) => ({
      root: await manager.acceptDangerousMode(body.cwd),
    }),
    'GET /api/sessions/:ref': ({ params, cwd }) => {
      const found = target(params.ref, cwd);
      return found.kind === 'peer' ? { session: found.peer.view } : envelope(found.session);
    },
    'GET /api/sessions/:ref/peek': async ({ params, cwd }) => {
      const found = target(params.ref, cwd);
      if (found.kind === 'local')
        return { ...(await manager.peek(found.session.id)), session: view(found.session) };
      return found.peer.peek();
    },
    'POST /api/sessions/:ref/reply': async ({ params, body, cwd }) => {
      const found = target(params.ref, cwd);
      if (found.kind === 'peer')
        return { session: await found.peer.send({ kind: 'reply', text: body.text }) };
      return envelope(await manager.reply(found.session.id, body.text, cwd, body.clientId));
    },
    'POST /api/sessions/:ref/approval': async ({ params, body, cwd }) => {
      const found = target(params.ref, cwd);
      if (found.kind === 'peer') {
        const view = found.peer.view;
        if (body.always === true)
          throw new InvalidInputError(
            `"Always" makes an allow rule in the repository of the machine running ${view.name} (${view.machine ?? '?'}); approve it there, or approve this call once.`,
          );
        const command = {
          kind: 'approval' as const,
          decision: body.decision,
          ...(body.reason === undefined ? {} : { reason: body.reason }),
          ...(body.requestId === undefined ? {} : { approvalId: body.requestId }),
        };
        return { session: await found.peer.send(command) };
      }
      if (body.always !== true)
        return envelope(
          await manager.resolveApproval(found.session.id, body.decision, body.reason, body.requestId, cwd),
        );
      if (body.decision !== 'allow')
        throw new InvalidInputError('"Always" goes with allowing a call, not with denying it.');
      // Approved, and an allow rule for its like in this repository (src/approvals); refused where the gate asked.
      await approvals.approveAlways(params.ref, body.requestId, body.reason, cwd, 'approval');
      return envelope(manager.resolve(params.ref, cwd));
    },
    'POST /api/sessions/:ref/interrupt': async ({ params, cwd }) =>
      envelope(await manager.interrupt(params.ref, cwd)),
    'POST /api/sessions/:ref/stop': async ({ params, cwd }) => {
      const found = target(params.ref, cwd);
      if (found.kind === 'peer') return { session: await found.peer.send({ kind: 'stop' }) };
      return envelope(await manager.stop(found.session.id, cwd));
    },
    'POST /api/sessions/:ref/respawn': async ({ params, query, cwd }) => {
      const found = target(params.ref, cwd);
      const on = query.on === undefined ? undefined : checkWorkerName(query.on, 'on');
      if (found.kind === 'local') {
        if (on !== undefined && on !== placing?.machine) {
          throw new InvalidInputError(
            `Session ${found.session.name} is this machine's, and its worktree is here: it respawns here, so --on ${on} does not apply.`,
            { key: 'on', value: on },
          );
        }
        return envelope(await manager.respawn(found.session.id, cwd));
      }
      // Another machine's session: placed again through the shared queue (decision 129).
      const placer = placing?.placer();
      const view = found.peer.view;
      if (placer === undefined)
        throw new SessionStateError(
          `Session ${view.name} runs on ${view.machine ?? 'another machine'}, and this supervisor places no sessions: respawn it there.`,
        );
      const { session, warnings } = await placer.respawn(view, on);
      return { session, warnings };
    },
    'POST /api/sessions/:ref/done': async ({ params, cwd }) => envelope(await manager.done(params.ref, cwd)),
    'POST /api/sessions/:ref/pin': ({ params, body, cwd }) =>
      envelope(manager.setPinned(params.ref, body.pinned, cwd)),
    'DELETE /api/sessions/:ref': async ({ params, cwd }) => {
      const { session, result } = await manager.remove(params.ref, cwd);
      return {
        session: manager.view(session),
        snapshotRef: result.snapshotRef ?? null,
        snapshotCommit: result.snapshotCommit ?? null,
        branchDeleted: result.branchDeleted,
        ...(result.notes === undefined ? {} : { notes: result.notes }),
      };
    },
  };
}
