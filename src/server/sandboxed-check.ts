/**
 * The repository's check at a turn's end, run in the session's sandbox, as its agent ran and as
 * its teardown runs: the command is trusted, but what it runs (a package.json script, a test
 * file, a Makefile) is the agent's work, and outside the sandbox it would run as the user with
 * the state folder and the token in reach (decision 271).
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { doorPath } from '../mcp/index.js';
import { describeCheck } from '../merge/index.js';
import { agentEnvironment, agentSandbox, sandboxStatus } from '../sandbox/index.js';
import { sessionPaths } from '../shared/paths.js';
import type { SessionWithProject } from '../store/sessions.js';

/** How provenance runs a session's check (its `verify.confine`): wrapped in the session's sandbox. */
export function checkInSandbox(
  home: string,
): (
  session: SessionWithProject,
  command: string | readonly string[],
  checkEnv: NodeJS.ProcessEnv,
) => { command: readonly string[]; env: NodeJS.ProcessEnv; shown: string } {
  return (session, command, checkEnv) => {
    const paths = sessionPaths(home, session.id);
    mkdirSync(paths.agentState, { recursive: true });
    const sandbox = agentSandbox(
      {
        home,
        worktree: session.worktree,
        stateDir: paths.agentState,
        door: doorPath(home, session.id),
        user: { home: checkEnv.HOME ?? homedir(), env: checkEnv },
        repository: session.project_root,
      },
      sandboxStatus(checkEnv),
    );
    const [file, ...args] = typeof command === 'string' ? ['sh', '-c', command] : [...command];
    const wrapped = sandbox.wrap(file ?? 'true', args);
    return {
      command: [wrapped.command, ...wrapped.args],
      env: sandbox.kind === 'none' ? checkEnv : agentEnvironment(stringsOf(checkEnv)),
      shown: describeCheck(command),
    };
  };
}

/** The set variables of an environment (the sandbox's filter takes strings only). */
function stringsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
