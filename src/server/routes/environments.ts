/** Worktree environments, disk and archives (issue 15): implements src/api/environments.ts. */
import type { ENVIRONMENTS } from '../../api/environments.js';
import type { SessionManager } from '../../sessions/manager.js';
import { InvalidInputError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';

function needCwd(cwd: string | undefined): string {
  if (cwd === undefined)
    throw new InvalidInputError(
      'Say which repository: send the x-baton-cwd header (or ?cwd=) with a folder inside it.',
    );
  return cwd;
}

export function environmentHandlers(manager: SessionManager): Handlers<typeof ENVIRONMENTS> {
  return {
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
