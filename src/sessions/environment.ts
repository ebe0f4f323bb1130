/**
 * A session's environment, built explicitly for each session: the user's environment (the one
 * the supervisor was started with) plus what Baton adds. It travels in the launch to the host —
 * over IPC for the spare host, in the process environment for a fresh one — and is never written
 * to disk, since it holds the user's keys. Later issues add per-session ports and variables here.
 */
import type { SessionWithProject } from '../store/sessions.js';

export type SessionEnv = Record<string, string>;

/**
 * The supervisor's own settings that no agent gets: the shared store's URL carries its password,
 * and with it an agent could write commands or session views for the whole workspace.
 */
const SUPERVISOR_ONLY = new Set(['BATON_STORE', 'BATON_STORE_FLAG', 'BATON_MACHINE_FLAG']);

/** Variables Baton sets for every agent, so scripts and hooks in the worktree know where they run. */
export function sessionEnvironment(
  userEnv: NodeJS.ProcessEnv,
  session: Pick<SessionWithProject, 'id' | 'name' | 'project_root' | 'branch'>,
): SessionEnv {
  const env: SessionEnv = {};
  for (const [key, value] of Object.entries(userEnv))
    if (value !== undefined && !SUPERVISOR_ONLY.has(key)) env[key] = value;
  env.BATON_SESSION_ID = session.id;
  env.BATON_SESSION_NAME = session.name;
  env.BATON_PROJECT_ROOT = session.project_root;
  env.BATON_BRANCH = session.branch;
  return env;
}
