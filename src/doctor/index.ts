/**
 * The doctor: what the supervisor can tell about the machine it runs on — itself, the agents a
 * session would run and whether they can reach their vendors, the machine's limits against the
 * sessions running, the worktrees' disk and the ports leased — each with its fix. The CLI adds
 * what only it can see (Node, git, whether a supervisor starts at all).
 */
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import type { DaemonStatus } from '../api/daemon.js';
import type { AgentsReport, DoctorCheck, DoctorReport } from '../api/doctor.js';
import { locateAgent } from '../agents/index.js';
import { diskUse } from '../environments/index.js';
import { loadConfig } from '../shared/config.js';
import { errorMessage } from '../shared/errors.js';
import { agentsOnMachine, chooseAgent, type AgentChoice } from './agents.js';
import {
  agentChecks,
  diskCheck,
  limitChecks,
  readLimits,
  sandboxCheck,
  signedIn,
  type AgentFound,
} from './checks.js';

export { agentsOnMachine, chooseAgent, REAL_AGENTS, type AgentChoice } from './agents.js';
export { agentChecks, diskCheck, FLOORS, limitChecks, readLimits, sandboxCheck, signedIn } from './checks.js';

export interface DoctorSources {
  status: () => DaemonStatus;
  /** The live sessions (with a worktree): their state, pin and folder. */
  sessions: () => readonly { state: string; pinned: boolean; worktree: string }[];
  leasedPorts: () => number;
  /** The supervisor's environment: what its sessions' agents inherit. */
  env: NodeJS.ProcessEnv;
  /** Where worktrees are made (its file system's free space is checked). */
  worktreesRoot: string;
}

const RUNNING = new Set(['preparing', 'starting', 'working', 'needs_input']);

export function doctorReport(sources: DoctorSources): DoctorReport {
  const status = sources.status();
  const sessions = sources.sessions();
  const checks: DoctorCheck[] = [
    {
      id: 'supervisor',
      title: 'Supervisor',
      status: 'ok',
      detail: `running, version ${status.version}, pid ${status.pid}, http://127.0.0.1:${status.port}, up ${status.uptimeSeconds} s; ${status.active} of ${status.maxConcurrent} slots busy, ${status.queued} queued`,
    },
  ];
  checks.push(...agentChecks((['claude', 'codex'] as const).map((agent) => findAgent(agent, sources.env))));
  checks.push(sandboxCheck(status.sandbox));
  const read = (path: string): string | undefined => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  checks.push(...limitChecks(readLimits(read), sessions.filter((s) => RUNNING.has(s.state)).length));
  checks.push(diskCheck(diskFigures(sessions, sources.worktreesRoot)));
  const ports = sources.leasedPorts();
  checks.push({
    id: 'ports',
    title: 'Ports',
    status: 'ok',
    detail: `${ports} port${ports === 1 ? '' : 's'} leased to sessions`,
  });
  return { checks };
}

/**
 * The agent of a dispatch that names none, read afresh each time so `baton config set agent`
 * takes effect without restarting the supervisor (decision 185).
 */
export function defaultAgent(configPath: string, env: NodeJS.ProcessEnv): AgentChoice {
  const configured = loadConfig(configPath, env).agent;
  // Every dispatch naming no agent asks: a configured agent is looked for alone (the scripted one
  // is not looked for at all), only a choice among what is installed needs them all (decision 416).
  const found =
    configured === undefined
      ? agentsOnMachine(env)
      : configured.id === 'scripted'
        ? []
        : agentsOnMachine(env, configured.id);
  return chooseAgent(configured, found, (agent) => {
    try {
      return locateAgent(agent, env, env.HOME ?? '/');
    } catch {
      return undefined;
    }
  });
}

/** What `GET /api/agents` answers: the configured default and the real agents installed. */
export function agentsReport(configPath: string, env: NodeJS.ProcessEnv): AgentsReport {
  const configured = loadConfig(configPath, env).agent;
  return {
    configured: configured === undefined ? null : { agent: configured.id, source: configured.source },
    agents: agentsOnMachine(env),
  };
}

function findAgent(agent: AgentFound['agent'], env: NodeJS.ProcessEnv): AgentFound {
  try {
    const path = locateAgent(agent, env, env.HOME ?? '/');
    return { agent, path, signedIn: signedIn(agent, env, existsSync) };
  } catch (error) {
    return { agent, missing: errorMessage(error), signedIn: undefined };
  }
}

function diskFigures(
  sessions: readonly { state: string; pinned: boolean; worktree: string }[],
  root: string,
): Parameters<typeof diskCheck>[0] {
  const seen = new Set<number>();
  let ownedBytes = 0;
  let completed = 0;
  let completedBytes = 0;
  let worktrees = 0;
  for (const s of sessions) {
    if (!existsSync(s.worktree)) continue;
    worktrees++;
    const owned = diskUse(s.worktree, seen).ownedBytes;
    ownedBytes += owned;
    if (s.state === 'completed' && !s.pinned) {
      completed++;
      completedBytes += owned;
    }
  }
  let freeBytes: number | undefined;
  try {
    const fs = statfsSync(existsSync(root) ? root : '/');
    freeBytes = fs.bavail * fs.bsize;
  } catch {
    freeBytes = undefined;
  }
  return { worktrees, ownedBytes, completed, completedBytes, freeBytes };
}
