/** Cost, budgets and alerts: thin calls to the watchdog (src/watchdog) and usage (src/usage). */
import type { WATCHDOG } from '../../api/watchdog.js';
import { BatonError } from '../../shared/errors.js';
import type { Watchdog } from '../../watchdog/index.js';
import type { Handlers } from './mount.js';

export function watchdogHandlers(watchdog: Watchdog | undefined): Handlers<typeof WATCHDOG> {
  const on = (): Watchdog => {
    if (watchdog === undefined)
      throw new BatonError('conflict', 'The watchdog is not running in this supervisor.');
    return watchdog;
  };
  return {
    'GET /api/cost': ({ query }) => on().cost(query.by),
    'GET /api/budgets': () => ({ budgets: on().budgets.list(), resumed: [] }),
    'POST /api/budgets': ({ body }) => on().budgets.set(body),
    'DELETE /api/budgets/:scope': ({ params }) => on().budgets.remove(params.scope),
    'GET /api/alerts': async ({ query }) => ({ alerts: await on().alerts.list(query.all) }),
    'POST /api/alerts/:id/ack': ({ params }) => on().alerts.acknowledge(params.id),
  };
}
