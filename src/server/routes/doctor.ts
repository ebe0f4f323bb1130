/** `GET /api/doctor` and `GET /api/agents`: implement src/api/doctor.ts. */
import type { DaemonStatus } from '../../api/daemon.js';
import type { DOCTOR } from '../../api/doctor.js';
import { agentsReport, doctorReport } from '../../doctor/index.js';
import type { SessionManager } from '../../sessions/index.js';
import { homePaths } from '../../shared/paths.js';
import { readUserConfig } from '../../shared/config.js';
import { listAgents } from '../../agents/index.js';
import { PortLeaseStore } from '../../store/port-leases.js';
import type { Handlers } from './mount.js';

export function doctorHandlers(manager: SessionManager, status: () => DaemonStatus): Handlers<typeof DOCTOR> {
  const ports = new PortLeaseStore(manager.db);
  return {
    'GET /api/doctor': () =>
      doctorReport({
        status,
        sessions: () =>
          manager.list().map((s) => ({ state: s.state, pinned: s.pinned === 1, worktree: s.worktree })),
        leasedPorts: () => ports.all().length,
        env: process.env,
        worktreesRoot: homePaths(status().home).worktrees,
      }),
    'GET /api/agents': () => agentsReport(homePaths(status().home).config, process.env),
    'GET /api/agents/list': () => ({
      agents: listAgents(readUserConfig(homePaths(status().home).config).agents, process.env, process.cwd()),
    }),
  };
}
