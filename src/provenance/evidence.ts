/**
 * Evidence-backed "done" (decision 253, "Ready for review says verified, claimed or failing"):
 * after a turn that changed the work, Baton runs the repository's check itself in the session's
 * worktree (its own process group, a time limit) and keeps what it saw with the exact tree it ran
 * on — command, exit, duration, the end of the output, and the tests the runner's summary counts.
 * A session whose last evidence is for its tree now is **verified** (passed) or **failing**; one
 * with none is **claimed** when its agent ran a test-like command itself, and says which.
 */

export interface TestCounts {
  ran: number;
  passed: number;
  failed: number;
}

export interface Evidence {
  sessionId: string;
  name: string;
  turn: number;
  /** The tree of the work the check ran on. */
  tree: string;
  command: string;
  outcome: 'passed' | 'failed' | 'timed_out';
  exitCode: number | null;
  durationMs: number;
  outputTail: string;
  tests: TestCounts | null;
  at: string;
  /**
   * Ignored files and folders the worktree held when the check started (the first few): the run
   * could lean on them, and the tree — what lands — does not hold them. A pass with any is not
   * reused by a merge (decision 340). Absent on evidence kept before it was recorded.
   */
  outsideTree?: string[];
}

/** Commands an agent runs that claim to check its work. */
const CHECK_WORDS =
  /\b(test|tests|vitest|jest|mocha|pytest|tox|cargo\s+test|go\s+test|rspec|phpunit|ctest|make\s+check|npm\s+run\s+check|lint|tsc)\b/;

export function claimsCheck(command: string): boolean {
  return CHECK_WORDS.test(command);
}

/**
 * The counts a test runner's summary gives, from the end of its output: vitest, jest, pytest,
 * node's test runner, mocha, cargo and go. Null when none is recognised (the exit code still counts).
 */
export function readTestCounts(output: string): TestCounts | null {
  // The runner's output arrives as plain text (colour codes already taken out by the check's runner).
  const text = output;
  const num = (re: RegExp): number | undefined => {
    const matches = [...text.matchAll(re)];
    const last = matches[matches.length - 1];
    return last === undefined ? undefined : Number(last[1]);
  };
  // vitest: "Tests  3 passed | 1 failed (4)"
  const vitest = /Tests\s+(.*)\((\d+)\)/.exec(text);
  if (vitest !== null && /passed|failed/.test(vitest[1]!)) {
    const passed = Number(/(\d+) passed/.exec(vitest[1]!)?.[1] ?? 0);
    const failed = Number(/(\d+) failed/.exec(vitest[1]!)?.[1] ?? 0);
    return { ran: Number(vitest[2]), passed, failed };
  }
  // jest: "Tests:       1 failed, 3 passed, 4 total"
  const jest = /Tests:\s+(.*?)(\d+) total/.exec(text);
  if (jest !== null) {
    const passed = Number(/(\d+) passed/.exec(jest[1]!)?.[1] ?? 0);
    const failed = Number(/(\d+) failed/.exec(jest[1]!)?.[1] ?? 0);
    return { ran: Number(jest[2]), passed, failed };
  }
  // node --test: "# pass 3" / "# fail 1"
  const nodePass = num(/^# pass (\d+)/gm);
  const nodeFail = num(/^# fail (\d+)/gm);
  if (nodePass !== undefined && nodeFail !== undefined)
    return { ran: nodePass + nodeFail, passed: nodePass, failed: nodeFail };
  // cargo: "test result: ok. 3 passed; 0 failed"
  const cargo = /test result: \w+\. (\d+) passed; (\d+) failed/.exec(text);
  if (cargo !== null) {
    const passed = Number(cargo[1]);
    const failed = Number(cargo[2]);
    return { ran: passed + failed, passed, failed };
  }
  // pytest: "=== 1 failed, 3 passed in 0.12s ===", mocha: "3 passing" / "1 failing"
  const pyPassed = num(/(\d+) pass(?:ed|ing)\b/g);
  const pyFailed = num(/(\d+) fail(?:ed|ing)\b/g) ?? 0;
  if (pyPassed !== undefined) return { ran: pyPassed + pyFailed, passed: pyPassed, failed: pyFailed };
  return null;
}

/** How the check is run (the merge queue's runner, handed in by the supervisor: own process group, time limit). */
export type RunCheck = (
  command: string | readonly string[],
  options: { cwd: string; timeoutSeconds: number; env?: NodeJS.ProcessEnv },
) => Promise<{
  outcome: Evidence['outcome'];
  exitCode: number | null;
  durationMs: number;
  outputTail: string;
  command: string;
}>;

/** Where a session stands: Baton ran the check on its tree now, the agent says it did, or nobody did. */
export type EvidenceStatus = 'verified' | 'failing' | 'claimed' | 'none';
