import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempRepo, type TempRepo } from '../../test/support/git-repo.js';
import { git } from './git.js';
import { holdGitCallsAtMost, inBackground, inForeground } from './git-priority.js';
import { gitRunnerPid, startGitRunner, stopGitRunner } from './git-runner.js';

let made: TempRepo;
beforeEach(() => {
  made = tempRepo('baton-git-runner-test-');
});
afterEach(() => made.cleanup());

/** The parent of the git process that ran this call: git's alias runs a shell, whose parent is git. */
const PARENT_OF_GIT = ['-c', 'alias.parent=!grep PPid /proc/$PPID/status', 'parent'];

function parentOf(output: string): number {
  return Number(/PPid:\s+(\d+)/.exec(output)?.[1]);
}

// Decision 415, "The supervisor starts its git processes from a small runner".
describe('the git runner', () => {
  beforeAll(async () => {
    expect(await startGitRunner()).toBe(true);
  });
  afterAll(() => stopGitRunner());

  it("starts git from the runner's process, not the caller's, with the same answers", async () => {
    const runner = gitRunnerPid();
    expect(runner).toEqual(expect.any(Number));
    expect(runner).not.toBe(process.pid);
    const ran = await git(made.repo, PARENT_OF_GIT);
    expect(parentOf(ran.stdout)).toBe(runner);
    expect((await git(made.repo, ['rev-parse', 'HEAD'])).stdout.trim()).toBe(made.base);
    // A refusal keeps its exit code and git's own words.
    const missing = await git(made.repo, ['rev-parse', '--verify', '--quiet', 'refs/heads/nope'], {
      okExitCodes: [1],
    });
    expect(missing.exitCode).toBe(1);
    await expect(git(made.repo, ['checkout', 'no-such-branch'])).rejects.toThrow(
      /git checkout failed: error: pathspec 'no-such-branch'/,
    );
  });

  it('refuses an argument with a null byte in the caller, as before, and the runner stays up', async () => {
    const runner = gitRunnerPid();
    await expect(git(made.repo, ['rev-parse', 'a\0b'])).rejects.toThrow(/null bytes/);
    expect(gitRunnerPid()).toBe(runner);
    expect((await git(made.repo, ['rev-parse', 'HEAD'])).stdout.trim()).toBe(made.base);
  });

  it('stops a call past its time limit, as git started directly is stopped', async () => {
    await expect(git(made.repo, ['-c', 'alias.nap=!sleep 2', 'nap'], { timeoutMs: 300 })).rejects.toThrow(
      /timed out after 300 ms and was stopped/,
    );
  });

  it('a runner killed under a call fails that call, and the next calls still run', async () => {
    const runner = gitRunnerPid()!;
    const killed = git(made.repo, ['-c', 'alias.nap=!sleep 3', 'nap']);
    // Killed once the call is its: the shell git started is the runner's grandchild by then.
    await waitFor(async () => (await childrenOf(runner)).length > 0);
    process.kill(runner, 'SIGKILL');
    await expect(killed).rejects.toThrow(/the git runner exited/);
    expect((await git(made.repo, ['rev-parse', 'HEAD'])).stdout.trim()).toBe(made.base);
    // A new runner is started in its place.
    expect(await startGitRunner()).toBe(true);
    expect(gitRunnerPid()).not.toBe(runner);
    expect(parentOf((await git(made.repo, PARENT_OF_GIT)).stdout)).toBe(gitRunnerPid());
  });

  it('is not there once stopped: git is started directly', async () => {
    stopGitRunner();
    expect(gitRunnerPid()).toBeUndefined();
    expect(parentOf((await git(made.repo, PARENT_OF_GIT)).stdout)).toBe(process.pid);
    expect(await startGitRunner()).toBe(true);
  });
});

// Decision 417, "A dispatch's git goes first".
describe("a dispatch's git goes first", () => {
  // Far past what the calls below take on a busy machine: the bound is not what is tested here.
  beforeAll(() => holdGitCallsAtMost(600_000));
  afterAll(() => holdGitCallsAtMost(2_000));

  it('holds every other git call until the foreground is done, and lets its own run meanwhile', async () => {
    let release = (): void => undefined;
    const done = new Promise<void>((resolve) => (release = resolve));
    const dispatch = inForeground(async () => {
      // Its own calls run while it holds the rest back.
      const own = await git(made.repo, ['rev-parse', 'HEAD']);
      await done;
      return own.stdout.trim();
    });
    const order: string[] = [];
    const other = git(made.repo, ['rev-parse', 'HEAD']).then(() => order.push('other'));
    // Started by a dispatch, but no part of it (an event's listener, not awaited): held like any other.
    let started: Promise<unknown> = Promise.resolve();
    await inForeground(async () => {
      started = inBackground(() => git(made.repo, ['rev-parse', 'HEAD']).then(() => order.push('started')));
      await Promise.resolve();
    });
    // A second dispatch's calls are not held behind the first.
    expect((await inForeground(() => git(made.repo, ['rev-parse', 'HEAD']))).stdout.trim()).toBe(made.base);
    order.push('second dispatch');
    release();
    expect(await dispatch).toBe(made.base);
    await Promise.all([other, started]);
    expect(order.slice(0, 1)).toEqual(['second dispatch']);
    expect(order.slice(1).sort()).toEqual(['other', 'started']);
  });

  it('holds nothing when no dispatch runs', async () => {
    const ran = await git(made.repo, ['rev-parse', 'HEAD']);
    expect(ran.stdout.trim()).toBe(made.base);
  });
});

async function childrenOf(pid: number): Promise<number[]> {
  const { readFileSync, readdirSync } = await import('node:fs');
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] === String(pid);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Waits on a condition of the process table, which no event announces. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
