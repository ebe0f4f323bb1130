/**
 * Pull requests: push the session branch to the repository's remote, then open the request with
 * GitHub's `gh` when it is installed and logged in, or else say where to open it by hand (the
 * compare page of a GitHub remote, the new-merge-request page of a GitLab one). `gh` gets an
 * argument array; the title and body are data, never parsed by a shell.
 */
import { execFile } from 'node:child_process';
import { GitError, InvalidInputError, SessionStateError } from '../shared/errors.js';
import { git, gitOut } from '../worktrees/index.js';

export interface PushResult {
  remote: string;
  remoteUrl: string;
  commit: string;
}

/** The remote's URL, or a clear error naming the remotes there are (and the config section that picks the remote). */
export async function remoteUrl(
  repo: string,
  remote: string,
  section: 'pr' | 'sync' = 'pr',
  timeoutMs?: number,
): Promise<string> {
  const limit = timeoutMs === undefined ? {} : { timeoutMs };
  const url = await git(repo, ['remote', 'get-url', '--', remote], { okExitCodes: [2, 128], ...limit });
  if (url.exitCode !== 0) {
    const remotes = (await gitOut(repo, ['remote'], limit)).split('\n').filter(Boolean);
    throw new InvalidInputError(
      `The repository has no remote "${remote}"${remotes.length > 0 ? ` (it has: ${remotes.join(', ')})` : ''}. Add it with \`git remote add ${remote} <url>\`, or set "${section}": {"remote": "…"} in .baton/config.json.`,
      { reason: 'no_remote', remote },
    );
  }
  return url.stdout.trim();
}

/** How long a push to the remote may take before it is stopped (a remote that hangs is common). */
export const PUSH_TIMEOUT_MS = 120_000;

/** Pushes `branch` to the remote as `as` (the same name unless said). */
export async function pushBranch(
  repo: string,
  remote: string,
  branch: string,
  timeoutMs = PUSH_TIMEOUT_MS,
  as = branch,
): Promise<PushResult> {
  const url = await remoteUrl(repo, remote, 'pr', 30_000);
  const commit = await gitOut(repo, ['rev-parse', `refs/heads/${branch}`], { timeoutMs: 30_000 });
  const pushed = await git(
    repo,
    ['push', '--porcelain', '--', remote, `refs/heads/${branch}:refs/heads/${as}`],
    { okExitCodes: [1, 128], timeoutMs },
  ).catch((error: unknown) => {
    if (error instanceof GitError && /timed out/.test(error.message)) {
      throw new SessionStateError(
        `git push to ${remote} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped; check that the remote answers (git push ${remote} ${branch}) and try again.`,
        { reason: 'push_timed_out', remote },
      );
    }
    throw error;
  });
  if (pushed.exitCode !== 0) {
    throw new SessionStateError(
      `git push to ${remote} failed: ${(pushed.stderr || pushed.stdout).trim().split('\n').slice(-3).join(' ')}`,
      { reason: 'push_failed', remote },
    );
  }
  return { remote, remoteUrl: url, commit };
}

/** Where to open the request by hand, from the remote's URL; undefined for hosts we do not know. */
export function compareUrl(remoteUrl: string, base: string, branch: string): string | undefined {
  const match =
    /^(?:https?:\/\/(?:[^@/]+@)?|ssh:\/\/(?:[^@/]+@)?|[^@/]+@)?(github\.com|gitlab\.com)[:/](.+?)(?:\.git)?\/?$/.exec(
      remoteUrl.trim(),
    );
  if (match === null) return undefined;
  const [, host, path] = match as unknown as [string, string, string];
  const enc = (ref: string): string => ref.split('/').map(encodeURIComponent).join('/');
  if (host === 'github.com')
    return `https://github.com/${path}/compare/${enc(base)}...${enc(branch)}?expand=1`;
  const query = `merge_request%5Bsource_branch%5D=${encodeURIComponent(branch)}&merge_request%5Btarget_branch%5D=${encodeURIComponent(base)}`;
  return `https://gitlab.com/${path}/-/merge_requests/new?${query}`;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  missing: boolean;
}

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: { ...env, GH_PROMPT_DISABLED: '1' }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr, missing: error !== null && error.code === 'ENOENT' });
      },
    );
  });
}

export type GhOutcome = { via: 'gh'; url: string } | { via: 'fallback'; why: string };

/** Opens the request with `gh`, or says why it could not (not installed, not logged in, refused). */
export async function openWithGh(input: {
  repo: string;
  base: string;
  branch: string;
  title: string;
  body: string;
  env: NodeJS.ProcessEnv;
}): Promise<GhOutcome> {
  const status = await run('gh', ['auth', 'status'], input.repo, input.env);
  if (status.missing) return { via: 'fallback', why: 'gh (the GitHub CLI) is not installed' };
  if (status.code !== 0) return { via: 'fallback', why: 'gh is not logged in (run `gh auth login`)' };
  const created = await run(
    'gh',
    [
      'pr',
      'create',
      '--head',
      input.branch,
      '--base',
      input.base,
      '--title',
      input.title,
      '--body',
      input.body,
    ],
    input.repo,
    input.env,
  );
  if (created.code !== 0)
    return {
      via: 'fallback',
      why: `gh pr create failed: ${(created.stderr || created.stdout).trim().split('\n').slice(-2).join(' ')}`,
    };
  const url = created.stdout.trim().split('\n').filter(Boolean).pop() ?? '';
  return { via: 'gh', url };
}

/** A pull request's title and body from the session: its name and prompt, and what it changed. */
export function describePr(input: { name: string; prompt: string; commits: string[]; files: string[] }): {
  title: string;
  body: string;
} {
  const firstLine =
    input.prompt
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? input.name;
  const title = firstLine.length > 72 ? `${firstLine.slice(0, 71)}…` : firstLine;
  const files = input.files.slice(0, 30).map((f) => `- \`${f}\``);
  const body = [
    `Work of the Baton session **${input.name}**.`,
    '',
    '### Prompt',
    '',
    ...input.prompt.split('\n').map((line) => `> ${line}`),
    '',
    `### Summary`,
    '',
    `${input.commits.length} commit${input.commits.length === 1 ? '' : 's'}, ${input.files.length} file${input.files.length === 1 ? '' : 's'} changed:`,
    ...files,
    ...(input.files.length > 30 ? [`- … and ${input.files.length - 30} more`] : []),
  ].join('\n');
  return { title, body };
}
