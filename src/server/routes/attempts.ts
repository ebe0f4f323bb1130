/** Attempts: thin calls to the attempts domain (src/attempts). */
import type { ATTEMPTS } from '../../api/attempts.js';
import type { AttemptService } from '../../attempts/index.js';
import { BatonError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';
import type { DispatchWarnings } from './sessions.js';

export function attemptHandlers(
  service: AttemptService | undefined,
  warnings: DispatchWarnings = () => [],
): Handlers<typeof ATTEMPTS> {
  const attempts = (): AttemptService => {
    if (service === undefined) throw new BatonError('internal', 'Attempts are not set up in this server.');
    return service;
  };
  // Judged before the sessions start, so their own first reports do not count; once per agent.
  const warned = (agents: readonly string[]): string[] => [
    ...new Set([...new Set(agents)].flatMap((agent) => warnings({ agent }))),
  ];
  return {
    'POST /api/attempts': async ({ body }) => {
      const told = warned(body.agents);
      return { ...(await attempts().startBestOf(body)), warnings: told };
    },
    'GET /api/attempts': ({ query }) => attempts().list({ kind: query.kind, project: query.project }),
    'GET /api/attempts/:group': ({ params, query }) =>
      attempts().compare(params.group, { runChecks: query.check !== 'false' }),
    'POST /api/attempts/pick': ({ body, cwd }) => attempts().pick(body.session, body.group, cwd),
    'POST /api/fanouts': async ({ body }) => {
      const told = warned([body.agent]);
      return { ...(await attempts().startFanout(body)), warnings: told };
    },
    'GET /api/fanouts/:group': ({ params }) => attempts().fanout(params.group),
  };
}
