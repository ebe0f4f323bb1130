/**
 * Worktree environments, disk and archives (decision 59, "Setup runs in the session's host"):
 * implements src/api/environments.ts.
 */
import type { ENVIRONMENTS } from '../../api/environments.js';
import { SessionCheckpoints, type SessionManager } from '../../sessions/index.js';
import { loadRepoConfig, trustDigest, trustState } from '../../projects/index.js';
import { InvalidInputError, SessionStateError } from '../../shared/errors.js';
import { findRepository } from '../../worktrees/index.js';
import type { Handlers } from './mount.js';

function needCwd(cwd: string | undefined): string {
  if (cwd === undefined)
    throw new InvalidInputError(
      'Say which repository: send the x-baton-cwd header (or ?cwd=) with a folder inside it.',
    );
  return cwd;
}

export function environmentHandlers(manager: SessionManager): Handlers<typeof ENVIRONMENTS> {
  const checkpoints = new SessionCheckpoints();
  const trustHere = async (cwd: string | undefined) => {
    const { root } = await findRepository(needCwd(cwd));
    const state = trustState(manager.home, root, loadRepoConfig(root));
    return { ...state, sha256: state.sha256 ?? null };
  };
  return {
    'GET /api/trust': ({ cwd }) => trustHere(cwd),
    'POST /api/trust': async ({ body, cwd }) => {
      const state = await trustHere(cwd);
      if (state.sha256 === null) return state;
      if (state.sha256 !== body.sha256)
        throw new SessionStateError(
          `${state.file} changed since you read it (its commands' sha256 is now ${state.sha256.slice(0, 12)}…); run \`baton trust\` again to read what it runs now.`,
          { reason: 'config_changed', sha256: state.sha256 },
        );
      trustDigest(manager.home, state.root, state.sha256);
      return { ...state, trusted: true };
    },
    'GET /api/sessions/:ref/checkpoints': async ({ params, cwd }) => {
      const session = manager.resolve(params.ref, cwd);
      return { session: session.name, checkpoints: await checkpoints.list(session) };
    },
    'POST /api/sessions/:ref/checkpoints/:name/restore': async ({ params, cwd }) => {
      const session = manager.resolve(params.ref, cwd);
      // Under the session's hold (decision 404): a keep-fresh rebase or a merge running ends first,
      // and one asked meanwhile waits, so the files written are never undone under the user.
      const restored = await manager.whileHeld(session.id, (now) => checkpoints.restore(now, params.name));
      return { session: session.name, worktree: session.worktree, ...restored };
    },
    'GET /api/sessions/:ref/environment': ({ params, cwd }) => manager.environment(params.ref, cwd),
    'GET /api/worktrees/disk': () => manager.archive.du(),
    'POST /api/worktrees/gc': async ({ body, cwd }) => ({
      dryRun: body.dryRun,
      ...(await manager.archive.gc(needCwd(cwd), body.dryRun)),
    }),
    'GET /api/snapshots': async ({ cwd }) => ({ snapshots: await manager.archive.snapshots(needCwd(cwd)) }),
    'POST /api/snapshots/:name/restore': async ({ params, body, cwd }) =>
      manager.archive.restore(needCwd(cwd), params.name, body.as),
  };
}
