/**
 * What `baton doctor` checks on the supervisor's side, each a pure function of what it reads so
 * the thresholds are tested without a machine that breaks them. Every check that is not ok says
 * the one command that fixes it.
 */
import type { DoctorCheck } from '../api/doctor.js';

/** A Linux resource limit or kernel setting, or undefined where the machine has none to read. */
export interface Limits {
  openFilesSoft?: number | undefined;
  openFilesHard?: number | undefined;
  inotifyInstances?: number | undefined;
  inotifyWatches?: number | undefined;
}

/**
 * The floors below which several agents on one machine start failing each other: an agent's
 * file watcher takes an inotify instance and a watch per folder, its tools and the host hold
 * files open. Below them a second or third session fails in ways that look like the agent's
 * fault ("EMFILE", "ENOSPC" from inotify).
 */
export const FLOORS = { openFiles: 4096, inotifyInstances: 256, inotifyWatches: 65_536 } as const;

export function limitChecks(limits: Limits, running: number): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const sessions = `${running} session${running === 1 ? '' : 's'} running`;
  if (limits.openFilesSoft !== undefined) {
    const low = limits.openFilesSoft < FLOORS.openFiles;
    checks.push({
      id: 'limits.open_files',
      title: 'Open files',
      status: low ? 'warn' : 'ok',
      detail: `soft limit ${limits.openFilesSoft}${limits.openFilesHard === undefined ? '' : ` (hard ${limits.openFilesHard})`}, ${sessions}${low ? `; below ${FLOORS.openFiles}, sessions may fail with EMFILE` : ''}`,
      ...(low
        ? {
            fix: `ulimit -n ${Math.min(65_536, limits.openFilesHard ?? 65_536)} in the shell that starts Baton, then baton daemon stop (the next command starts it with the new limit)`,
          }
        : {}),
    });
  }
  if (limits.inotifyInstances !== undefined && limits.inotifyWatches !== undefined) {
    const low =
      limits.inotifyInstances < FLOORS.inotifyInstances || limits.inotifyWatches < FLOORS.inotifyWatches;
    checks.push({
      id: 'limits.inotify',
      title: 'File watches',
      status: low ? 'warn' : 'ok',
      detail: `inotify: ${limits.inotifyInstances} instances, ${limits.inotifyWatches} watches per user, ${sessions}${low ? '; agents that watch files will fail each other (ENOSPC, "too many open files")' : ''}`,
      ...(low
        ? {
            fix: 'sudo sysctl -w fs.inotify.max_user_instances=1024 fs.inotify.max_user_watches=524288 (and the same lines in /etc/sysctl.d/ to keep them)',
          }
        : {}),
    });
  }
  return checks;
}

/** Reads the limits of this process and the kernel's inotify settings (Linux; elsewhere none). */
export function readLimits(read: (path: string) => string | undefined): Limits {
  const limits: Limits = {};
  const table = read('/proc/self/limits');
  const files = table?.match(/^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m);
  if (files) {
    limits.openFilesSoft = files[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(files[1]);
    limits.openFilesHard = files[2] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(files[2]);
  }
  const number = (path: string): number | undefined => {
    const text = read(path)?.trim();
    return text === undefined || !/^\d+$/.test(text) ? undefined : Number(text);
  };
  limits.inotifyInstances = number('/proc/sys/fs/inotify/max_user_instances');
  limits.inotifyWatches = number('/proc/sys/fs/inotify/max_user_watches');
  return limits;
}

export interface AgentFound {
  agent: 'claude' | 'codex';
  /** The executable a session would run, or why none was found. */
  path?: string | undefined;
  missing?: string | undefined;
  /** Whether the agent can reach its vendor: a key in the supervisor's environment, or a sign-in file. */
  signedIn: { how: string } | undefined;
}

const SIGN_IN: Record<AgentFound['agent'], string> = {
  claude:
    'run claude once and sign in (/login), or set ANTHROPIC_API_KEY in the environment that starts Baton, then baton daemon stop',
  codex:
    'run codex login, or set OPENAI_API_KEY in the environment that starts Baton, then baton daemon stop',
};

export function agentChecks(found: readonly AgentFound[]): DoctorCheck[] {
  const checks = found.map((a): DoctorCheck => {
    const title = a.agent === 'claude' ? 'Claude Code' : 'Codex';
    if (a.path === undefined)
      return {
        id: `agent.${a.agent}`,
        title,
        status: 'warn',
        detail: a.missing ?? 'not found',
        fix:
          a.agent === 'claude'
            ? 'npm install -g @anthropic-ai/claude-code, then claude once to sign in'
            : 'npm install -g @openai/codex, then codex login',
      };
    if (a.signedIn === undefined)
      return {
        id: `agent.${a.agent}`,
        title,
        status: 'warn',
        detail: `${a.path}; not signed in (no key in the supervisor's environment, no sign-in file)`,
        fix: SIGN_IN[a.agent],
      };
    return {
      id: `agent.${a.agent}`,
      title,
      status: 'ok',
      detail: `${a.path}; signed in (${a.signedIn.how})`,
    };
  });
  if (found.every((a) => a.path === undefined || a.signedIn === undefined))
    checks.push({
      id: 'agents',
      title: 'Agents',
      status: 'fail',
      detail: 'no real agent is ready: only the scripted agent (demos and tests) can run',
      fix: 'install and sign in to Claude Code or Codex (see above)',
    });
  return checks;
}

/** How an agent reaches its vendor, judged from the supervisor's environment and home. */
export function signedIn(
  agent: AgentFound['agent'],
  env: NodeJS.ProcessEnv,
  exists: (path: string) => boolean,
  read: (path: string) => string | undefined = () => undefined,
): { how: string } | undefined {
  const home = env.HOME ?? '';
  if (agent === 'claude') {
    for (const key of ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'])
      if (env[key]) return { how: `$${key}` };
    const dir = env.CLAUDE_CONFIG_DIR ?? `${home}/.claude`;
    if (exists(`${dir}/.credentials.json`)) return { how: `${dir}/.credentials.json` };
    return undefined;
  }
  if (env.OPENAI_API_KEY) return { how: '$OPENAI_API_KEY' };
  const dir = env.CODEX_HOME ?? `${home}/.codex`;
  if (exists(`${dir}/auth.json`)) return { how: `${dir}/auth.json` };
  // A provider of the user's own (a gateway, a local model) signs in with its own key, named in
  // config.toml; Baton cannot judge that key, so the provider's presence counts.
  const provider = /^\s*model_provider\s*=\s*"([^"]+)"/m.exec(read(`${dir}/config.toml`) ?? '')?.[1];
  if (provider !== undefined && provider !== 'openai')
    return { how: `model_provider "${provider}" in ${dir}/config.toml` };
  return undefined;
}

export interface DiskFigures {
  worktrees: number;
  ownedBytes: number;
  /** Worktrees of completed, unpinned sessions: what `baton rm --completed` frees. */
  completed: number;
  completedBytes: number;
  /** Free bytes on the file system holding the worktrees. */
  freeBytes?: number | undefined;
}

/** Below this much free space a dispatch (a new worktree, its setup) may fail half-way. */
export const LOW_DISK_BYTES = 2 * 1024 ** 3;

export function diskCheck(d: DiskFigures): DoctorCheck {
  const mb = (n: number): string => `${(n / 1024 ** 2).toFixed(1)} MB`;
  const low = d.freeBytes !== undefined && d.freeBytes < LOW_DISK_BYTES;
  const frees = d.completed > 0 ? `; ${d.completed} of completed sessions hold ${mb(d.completedBytes)}` : '';
  return {
    id: 'disk.worktrees',
    title: 'Worktrees',
    status: low ? 'warn' : 'ok',
    detail: `${d.worktrees} live worktree${d.worktrees === 1 ? '' : 's'} use ${mb(d.ownedBytes)}${frees}${d.freeBytes === undefined ? '' : `; ${mb(d.freeBytes)} free`}`,
    ...(d.completed > 0 || low
      ? {
          fix: "baton rm --completed (removes completed sessions' worktrees; their work stays as snapshots), or a cleanup policy in .baton/config.json and baton gc",
        }
      : {}),
  };
}

/**
 * The sandbox agents run in (decision 163): without one, an agent — or a prompt injected into it —
 * can read the user's token and act as the user, and the user must hear it here.
 */
export function sandboxCheck(sandbox: {
  kind: 'bubblewrap' | 'none';
  detail: string;
  summary: string;
}): DoctorCheck {
  if (sandbox.kind === 'bubblewrap')
    return {
      id: 'sandbox',
      title: 'Sandbox',
      status: 'ok',
      detail: `bubblewrap ${sandbox.detail}: ${sandbox.summary}`,
    };
  return {
    id: 'sandbox',
    title: 'Sandbox',
    status: 'warn',
    detail: sandbox.summary,
    fix:
      process.platform === 'linux'
        ? "sudo apt-get install bubblewrap (or your distribution's package), allow unprivileged user namespaces, then baton daemon stop"
        : 'none yet on this system: run only agents and prompts you trust, and read docs/safety.md',
  };
}
