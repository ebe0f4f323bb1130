/**
 * Where a merge bisects. The repository's check runs once on the whole merged group; when it
 * fails, the group's order is halved — the scratch worktree reset to the tip after a prefix of the
 * members, checked again — until the first member whose step makes the check fail is found: that
 * member broke it, and the failure goes back to it alone. A tree the check already passed on at a
 * turn's end is not checked again (decision 291).
 */
import type { z } from 'zod';
import type { MergeCheckOutcome } from '../events/workspace.js';
import { git } from '../worktrees/index.js';
import { describeCheck, runCheck, type CheckCommand, type CheckResult } from './check.js';

export type Check = z.infer<typeof MergeCheckOutcome>;
/** A run of the check Baton made on the same tree at a turn's end (decision 291). */
export type ReusedCheck = NonNullable<Check['reused']> & {
  durationMs: number;
  exitCode: number | null;
  outputTail: string;
};

export const NO_CHECK: Check = {
  outcome: 'none',
  command: null,
  durationMs: null,
  exitCode: null,
  outputTail: null,
};

export interface GroupCheck {
  /** The scratch worktree, at the last member's head. */
  scratch: string;
  /** What each member's merge step made, in the group's order. */
  heads: string[];
  command: CheckCommand;
  timeoutSeconds: number;
  env: NodeJS.ProcessEnv;
  /** The passing run of this command on exactly this tree Baton made at a turn's end, if any. */
  reuse?: ((tree: string, command: string) => ReusedCheck | undefined) | undefined;
  /** Told before each run: the command, the commit checked, and how many members it holds. */
  onChecking(command: string, commit: string, members: number): void;
}

/** The group passed, or the index of the member that broke it, with the failing run. */
export type GroupVerdict =
  { passed: true; check: Check } | { passed: false; culprit: number; check: Check; bisected: boolean };

export async function checkGroup(input: GroupCheck): Promise<GroupVerdict> {
  const { scratch, heads, command } = input;
  const commit = heads[heads.length - 1]!;
  // The tree to land is one the check already passed on at a turn's end: the same command on the
  // same files, so it is not run again (decision 291). Any other tree runs it.
  const tree = (await git(scratch, ['rev-parse', `${commit}^{tree}`])).stdout.trim();
  const reused = input.reuse?.(tree, describeCheck(command));
  if (reused !== undefined) {
    const { durationMs, exitCode, outputTail, ...which } = reused;
    return {
      passed: true,
      check: {
        outcome: 'passed',
        command: describeCheck(command),
        durationMs,
        exitCode,
        outputTail,
        reused: which,
      },
    };
  }
  const run = async (head: string): Promise<CheckResult> => {
    input.onChecking(describeCheck(command), head, heads.indexOf(head) + 1);
    return runCheck(command, { cwd: scratch, timeoutSeconds: input.timeoutSeconds, env: input.env });
  };
  const whole = await run(commit);
  if (whole.outcome === 'passed') return { passed: true, check: outcomeOf(whole) };
  // Bisect: the first prefix of the order whose check fails names the member that broke it.
  let lo = 0;
  let hi = heads.length - 1;
  let failing = whole;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    await resetScratch(scratch, heads[mid]!);
    const result = await run(heads[mid]!);
    if (result.outcome === 'passed') lo = mid + 1;
    else {
      hi = mid;
      failing = result;
    }
  }
  return { passed: false, culprit: hi, check: outcomeOf(failing), bisected: heads.length > 1 };
}

async function resetScratch(scratch: string, head: string): Promise<void> {
  await git(scratch, ['checkout', '--quiet', '--force', '--detach', head]);
  // What the last check built or left behind must not decide the next one.
  await git(scratch, ['clean', '-fdxq']);
}

function outcomeOf(result: CheckResult): Check {
  return {
    outcome: result.outcome,
    command: result.command,
    durationMs: result.durationMs,
    exitCode: result.exitCode,
    outputTail: result.outputTail,
  };
}
