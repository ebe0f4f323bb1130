/** The supervisor's own endpoints. */
import type { DaemonStatus } from '../../api/daemon.js';
import type { DAEMON } from '../../api/daemon.js';
import { openApiDocument } from '../openapi.js';
import { VERSION } from '../../shared/version.js';
import type { Handlers } from './mount.js';

export interface DaemonDeps {
  status: () => DaemonStatus;
  /** How far the start has come; a supervisor made without a start (tests) is ready. */
  phase?: () => DaemonStatus['phase'];
  requestShutdown: () => void;
  /** `daemon stop --all`: every session host ended before the supervisor goes. */
  endHosts?: () => Promise<void>;
}

export function daemonHandlers(deps: DaemonDeps): Handlers<typeof DAEMON> {
  let openApi: Record<string, unknown> | undefined;
  return {
    'GET /api/health': () => ({
      ok: true,
      pid: process.pid,
      phase: deps.phase?.() ?? 'ready',
      version: VERSION,
    }),
    'GET /api/daemon': () => deps.status(),
    'POST /api/daemon/stop': async ({ query }) => {
      if (query.hosts) await deps.endHosts?.();
      setImmediate(deps.requestShutdown);
      return { ok: true };
    },
    'GET /api/openapi.json': () => (openApi ??= openApiDocument()),
  };
}
