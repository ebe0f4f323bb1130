/**
 * Teardown: the repository's commands run in a worktree before it is removed (`docker compose
 * down`, dropping the session's database). Each gets the setup time limit; a failing one is
 * reported and the rest still run, and removal goes on: the worktree's work is snapshotted
 * either way, and a teardown that cannot finish must not keep a worktree for ever.
 *
 * The commands are the trusted config's, but the files they run (a `./scripts/down.sh`) are in the
 * worktree, where the agent could have rewritten them: they run in the agent's sandbox, never with
 * the user's own authority (decision 191, "Teardown runs in the session's sandbox").
 */
import { appendFileSync } from 'node:fs';
import type { CommandSandbox } from '../sandbox/index.js';
import type { EnvironmentPlan } from './plan.js';
import { commandLabel, runCommand } from './run.js';

export async function runTeardown(
  plan: EnvironmentPlan,
  worktree: string,
  env: NodeJS.ProcessEnv,
  logPath: string,
  sandbox?: CommandSandbox,
): Promise<{ failures: string[] }> {
  const failures: string[] = [];
  for (const command of plan.teardown) {
    const label = commandLabel(command);
    appendFileSync(logPath, `\n$ teardown ${label}\n`);
    const result = await runCommand(command, {
      cwd: worktree,
      env,
      timeoutMs: plan.setupTimeoutSeconds * 1000,
      onOutput: (text) => appendFileSync(logPath, text),
      sandbox,
    });
    if (!result.ok)
      failures.push(
        `\`${label}\` ${result.ended === 'timeout' ? `did not finish within ${plan.setupTimeoutSeconds} s` : (result.error ?? 'failed')}`,
      );
  }
  return { failures };
}
