/** Runs the real git CLI: argument arrays, explicit cwd, exit code checked, stderr kept. */
import { existsSync } from 'node:fs';
import { GitError } from '../shared/errors.js';
import { guardedCall, type SharedListing } from './git-guard.js';
import { turnToRun } from './git-priority.js';
import { execGit } from './git-runner.js';

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface GitOptions {
  env?: NodeJS.ProcessEnv;
  /** Exit codes that are answers, not failures (e.g. 1 from `merge-tree` on conflict). */
  okExitCodes?: number[];
  /** Stops git (SIGKILL) after this long and fails with a message saying so; unset: no limit. */
  timeoutMs?: number;
  /** The repository's settings as listed for an earlier call of the same operation (decision 449). */
  listing?: SharedListing;
}

/**
 * Baton runs git as the user, outside the agent's sandbox, in repositories whose `.git` an agent
 * can write: no setting of the repository's own that names a program is followed (decisions 196
 * and 200), and diffs are made without an external diff or textconv.
 */
export async function git(cwd: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  // A dispatch's calls go first: anything else starts once it is done (decision 417).
  const turn = turnToRun();
  if (turn !== undefined) await turn;
  const guarded = await guardedCall(
    cwd,
    args,
    { ...process.env, ...options.env },
    options.timeoutMs,
    options.listing,
  );
  const env = guarded.env;
  args = guarded.args;
  return new Promise((resolve, reject) => {
    execGit(
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs },
      (error, stdout, stderr) => {
        const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (exitCode === 0 || options.okExitCodes?.includes(exitCode)) {
          resolve({ stdout, stderr, exitCode });
          return;
        }
        if (options.timeoutMs !== undefined && error?.killed === true) {
          reject(
            new GitError(
              `git ${args[0] ?? ''} timed out after ${options.timeoutMs} ms and was stopped`,
              args,
              stderr,
            ),
          );
          return;
        }
        const firstLine = stderr.trim().split('\n')[0] ?? '';
        // A spawn in a folder that is gone fails with ENOENT, which reads as "no git installed".
        if (firstLine === '' && !existsSync(cwd)) {
          // Not a fault of Baton's: the folder (a session's worktree, say) was removed meanwhile.
          reject(
            new GitError(
              `git ${args[0] ?? ''} failed: the folder ${cwd} does not exist (removed meanwhile?)`,
              args,
              stderr,
              'conflict',
            ),
          );
          return;
        }
        reject(new GitError(`git ${args[0] ?? ''} failed: ${firstLine || error?.message}`, args, stderr));
      },
    );
  });
}

/**
 * Lists the repository's settings into `listing` now, beside another call, rather than just
 * before the first guarded call that uses them (a snapshot's, beside its rev-parse: decision 449).
 */
export async function listSettings(
  cwd: string,
  listing: SharedListing,
  options: GitOptions = {},
): Promise<void> {
  const turn = turnToRun();
  if (turn !== undefined) await turn;
  // Any guarded subcommand has them listed; the call itself is not made here.
  await guardedCall(cwd, ['add'], { ...process.env, ...options.env }, options.timeoutMs, listing);
}

export async function gitOut(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  return (await git(cwd, args, options)).stdout.trim();
}
