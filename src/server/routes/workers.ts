/** The machines serving the workspace: answered by the supervisor's membership (src/server/cluster.ts). */
import type { WORKERS, WorkersView } from '../../api/workers.js';
import { BatonError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';

export function workerHandlers(view: (() => Promise<WorkersView>) | undefined): Handlers<typeof WORKERS> {
  return {
    'GET /api/workers': () => {
      if (view === undefined) throw new BatonError('internal', 'Workers are not set up in this server.');
      return view();
    },
  };
}
