/** Worktree environments (issue 15): implements src/api/environments.ts. */
import type { ENVIRONMENTS } from '../../api/environments.js';
import type { SessionManager } from '../../sessions/manager.js';
import type { Handlers } from './mount.js';

export function environmentHandlers(manager: SessionManager): Handlers<typeof ENVIRONMENTS> {
  return {
    'GET /api/sessions/:ref/environment': ({ params, cwd }) => manager.environment(params.ref, cwd),
  };
}
