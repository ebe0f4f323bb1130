/**
 * The supervisor's timings that tests and operators tune through the environment, each with its
 * default and a floor that keeps a bad value from becoming a tight loop.
 */

/** How often the time-driven triggers look: 15 s, or `BATON_WATCHDOG_TICK_MS` (tests, tuning). */
export function watchdogTickMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.BATON_WATCHDOG_TICK_MS);
  return Number.isInteger(given) && given >= 50 ? given : 15_000;
}

/** How often a task's session waiting for another machine's landing looks again: 30 s, or `BATON_TASK_RECHECK_MS` (tests, tuning). */
export function taskRecheckMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.BATON_TASK_RECHECK_MS);
  return Number.isInteger(given) && given >= 50 ? given : 30_000;
}

/**
 * The first wait after a failed push: 30 s, or `BATON_SYNC_BACKOFF_MS` (tests, tuning). At least
 * 50 ms: a timer retries each failure, and no wait would retry a dead remote in a tight loop.
 */
export function syncBackoff(env: NodeJS.ProcessEnv): { backoffMs?: number } {
  const given =
    env.BATON_SYNC_BACKOFF_MS === undefined || env.BATON_SYNC_BACKOFF_MS === ''
      ? NaN
      : Number(env.BATON_SYNC_BACKOFF_MS);
  return Number.isInteger(given) && given >= 50 ? { backoffMs: given } : {};
}
