/** Sessions: thin calls to the SessionManager, answered as views. */
import type { SESSIONS } from '../../api/sessions.js';
import type { PolicyService } from '../../policy/index.js';
import type { SessionManager } from '../../sessions/manager.js';
import { InvalidInputError } from '../../shared/errors.js';
import type { SessionWithProject } from '../../store/sessions.js';
import type { Handlers } from './mount.js';

/** What a dispatch of this agent is warned of (the watchdog's budgets and windows); none without a watchdog. */
export type DispatchWarnings = (session: { agent: string }) => string[];

export function sessionHandlers(manager: SessionManager, policy: PolicyService, warnings: DispatchWarnings = () => []): Handlers<typeof SESSIONS> {
  const envelope = (session: SessionWithProject) => ({ session: manager.view(session) });
  return {
    'GET /api/sessions': ({ query: { project } }) => {
      const sessions = manager.list().filter((s) => project === undefined || s.project_root === project || s.project_name === project);
      return { sessions: sessions.map((s) => manager.view(s)), reviewQueue: manager.workSizes.reviewQueue(sessions) };
    },
    'POST /api/sessions': async ({ body }) => {
      // Judged as the work starts, before the new session's own first report counts.
      const warned = warnings({ agent: body.agent });
      const { session, mainCheckout } = await manager.dispatchWithNotes(body);
      return { ...envelope(session), mainCheckout, warnings: warned };
    },
    'POST /api/sessions/respawn-all': async ({ body }) => {
      const sessions = await manager.respawnAll(body.project);
      return { sessions: sessions.map((s) => manager.view(manager.resolve(s.id))) };
    },
    'POST /api/dangerous-mode/accept': async ({ body }) => ({ root: await manager.acceptDangerousMode(body.cwd) }),
    'GET /api/sessions/:ref': ({ params, cwd }) => envelope(manager.resolve(params.ref, cwd)),
    'GET /api/sessions/:ref/peek': ({ params, cwd }) => manager.peek(params.ref, cwd),
    'POST /api/sessions/:ref/reply': async ({ params, body, cwd }) => envelope(await manager.reply(params.ref, body.text, cwd, body.clientId)),
    'POST /api/sessions/:ref/approval': async ({ params, body, cwd }) => {
      if (body.always !== true) return envelope(await manager.resolveApproval(params.ref, body.decision, body.reason, body.requestId, cwd));
      if (body.decision !== 'allow') throw new InvalidInputError('"Always" goes with allowing a call, not with denying it.');
      // Approved, and an allow rule for its like in this repository (src/policy); refused where the gate asked.
      await policy.approveAlways(params.ref, body.requestId, body.reason, cwd, 'approval');
      return envelope(manager.resolve(params.ref, cwd));
    },
    'POST /api/sessions/:ref/interrupt': async ({ params, cwd }) => envelope(await manager.interrupt(params.ref, cwd)),
    'POST /api/sessions/:ref/stop': async ({ params, cwd }) => envelope(await manager.stop(params.ref, cwd)),
    'POST /api/sessions/:ref/respawn': async ({ params, cwd }) => envelope(await manager.respawn(params.ref, cwd)),
    'POST /api/sessions/:ref/done': async ({ params, cwd }) => envelope(await manager.done(params.ref, cwd)),
    'POST /api/sessions/:ref/pin': ({ params, body, cwd }) => envelope(manager.setPinned(params.ref, body.pinned, cwd)),
    'DELETE /api/sessions/:ref': async ({ params, cwd }) => {
      const { session, result } = await manager.remove(params.ref, cwd);
      return {
        session: manager.view(session),
        snapshotRef: result.snapshotRef ?? null,
        snapshotCommit: result.snapshotCommit ?? null,
        branchDeleted: result.branchDeleted,
      };
    },
  };
}
