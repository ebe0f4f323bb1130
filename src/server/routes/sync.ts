/** Sync: thin calls to the sync domain (src/sync). */
import type { SYNC } from '../../api/sync.js';
import { BatonError } from '../../shared/errors.js';
import { restoreSession, type SyncService } from '../../sync/index.js';
import type { Handlers } from './mount.js';

export function syncHandlers(service: SyncService | undefined): Handlers<typeof SYNC> {
  const sync = (): SyncService => {
    if (service === undefined) throw new BatonError('internal', 'Sync is not set up in this server.');
    return service;
  };
  return {
    'GET /api/sync': ({ query, cwd }) => ({ sessions: sync().list(query.session, cwd) }),
    'POST /api/sync/:ref/push': ({ params, body, cwd }) =>
      sync().pushNow(params.ref, cwd, body.force === true),
    'POST /api/sync/restore': ({ body }) => restoreSession(body),
  };
}
