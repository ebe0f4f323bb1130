/** Attempts: thin calls to the attempts domain (src/attempts). */
import type { ATTEMPTS } from '../../api/attempts.js';
import type { AttemptService } from '../../attempts/index.js';
import { BatonError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';

export function attemptHandlers(service: AttemptService | undefined): Handlers<typeof ATTEMPTS> {
  const attempts = (): AttemptService => {
    if (service === undefined) throw new BatonError('internal', 'Attempts are not set up in this server.');
    return service;
  };
  return {
    'POST /api/attempts': ({ body }) => attempts().startBestOf(body),
    'GET /api/attempts': ({ query }) => attempts().list({ kind: query.kind, project: query.project }),
    'GET /api/attempts/:group': ({ params, query }) => attempts().compare(params.group, { runChecks: query.check !== 'false' }),
    'POST /api/attempts/pick': ({ body, cwd }) => attempts().pick(body.session, body.group, cwd),
    'POST /api/fanouts': ({ body }) => attempts().startFanout(body),
    'GET /api/fanouts/:group': ({ params }) => attempts().fanout(params.group),
  };
}
