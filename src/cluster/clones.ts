/**
 * A repository's identity across machines (decision 128, "`dispatch --on`"): the URL of its shared remote
 * and a base branch. The dispatching machine reads them from its checkout; the machine that runs
 * the session finds a local clone with that remote (a project it already knows, or one it cloned
 * before) or clones it, and fetches the base from the remote. No PostgreSQL here.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_SYNC_REMOTE, loadRepoConfig } from '../projects/index.js';
import { GitError, InvalidInputError } from '../shared/errors.js';
import { findRepository, git } from '../worktrees/index.js';

/** Local git calls; a clone or a fetch crosses the network and gets longer. */
const LOCAL_MS = 30_000;
const NETWORK_MS = 5 * 60_000;

export interface RepositoryIdentity {
  /** The shared remote's URL, absolute when it is a local path. */
  url: string;
  /** The branch (or tag, or commit) the session starts from, fetched from the remote elsewhere. */
  base: string;
  /** The project's folder name, which a clone elsewhere is named after. */
  project: string;
}

/**
 * What another machine needs to run a session of the repository holding `cwd`: its `sync.remote`
 * (`.baton/config.json`) or `origin`, and `base` or the branch checked out. A repository without
 * that remote cannot be worked on elsewhere.
 */
export async function repositoryIdentity(cwd: string, base: string | undefined): Promise<RepositoryIdentity> {
  const repo = await findRepository(cwd);
  const remote = loadRepoConfig(repo.root).sync?.remote ?? DEFAULT_SYNC_REMOTE;
  const got = await git(repo.root, ['remote', 'get-url', '--', remote], {
    okExitCodes: [2, 128],
    timeoutMs: LOCAL_MS,
  });
  const url = got.stdout.trim();
  if (got.exitCode !== 0 || url === '') {
    throw new InvalidInputError(
      `${repo.root} has no remote "${remote}", so another machine cannot fetch it: add one (git remote add ${remote} <url>, or set sync.remote in .baton/config.json) or dispatch with --on <this machine>.`,
      { key: 'on', remote },
    );
  }
  const from = base ?? repo.branch;
  if (from === 'HEAD')
    throw new InvalidInputError(
      `${repo.root} has no branch checked out (detached HEAD): name the base another machine should fetch with --base <branch>.`,
      { key: 'base' },
    );
  return { url: absoluteUrl(url, repo.root), base: from, project: basename(repo.root) };
}

/**
 * A local repository whose remote is `url`: one of `knownRoots` (projects this machine already
 * has sessions in), else an earlier clone under `<home>/clones`, else a new clone there named
 * after the project (`name-2`, … when the name is taken by another repository).
 */
export async function localCloneOf(input: {
  url: string;
  project: string;
  home: string;
  knownRoots: readonly string[];
}): Promise<string> {
  const clones = join(input.home, 'clones');
  const earlier = existsSync(clones) ? readdirSync(clones).map((name) => join(clones, name)) : [];
  for (const root of new Set([...input.knownRoots, ...earlier])) {
    if (await hasRemote(root, input.url)) return root;
  }
  mkdirSync(clones, { recursive: true, mode: 0o700 });
  const name = safeName(input.project);
  let target = join(clones, name);
  for (let n = 2; existsSync(target); n++) target = join(clones, `${name}-${n}`);
  await git(clones, ['clone', '--quiet', '--', input.url, target], { timeoutMs: NETWORK_MS });
  return target;
}

/** Fetches `base` from `url` into `root` and returns its commit. */
export async function fetchBase(
  root: string,
  url: string,
  base: string,
  placementId: string,
): Promise<string> {
  const ref = `refs/baton/placed/${placementId}`;
  try {
    await git(root, ['fetch', '--quiet', '--no-tags', '--', url, `+${base}:${ref}`], {
      timeoutMs: NETWORK_MS,
    });
  } catch (error) {
    if (error instanceof GitError)
      throw new InvalidInputError(
        `Cannot fetch the base "${base}" from ${url}: ${error.message}. Push it there first.`,
        { key: 'base', value: base },
      );
    throw error;
  }
  const commit = (
    await git(root, ['rev-parse', '--verify', `${ref}^{commit}`], { timeoutMs: LOCAL_MS })
  ).stdout.trim();
  // The session's worktree holds the commit from here on; the ref was only the fetch's landing place.
  await git(root, ['update-ref', '-d', ref], { timeoutMs: LOCAL_MS }).catch(() => {});
  // A clone of a remote whose HEAD names a branch it lacks has nothing checked out, and a
  // repository without a commit at HEAD takes no session: it gets the base, detached.
  const head = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], {
    okExitCodes: [1, 128],
    timeoutMs: LOCAL_MS,
  });
  if (head.exitCode !== 0)
    await git(root, ['checkout', '--quiet', '--detach', commit], { timeoutMs: LOCAL_MS });
  return commit;
}

async function hasRemote(root: string, url: string): Promise<boolean> {
  if (!existsSync(root)) return false;
  const got = await git(root, ['config', '--get-regexp', '^remote\\..*\\.url$'], {
    okExitCodes: [1],
    timeoutMs: LOCAL_MS,
  }).catch(() => undefined);
  if (got === undefined || got.exitCode !== 0) return false;
  return got.stdout
    .split('\n')
    .map((line) => line.slice(line.indexOf(' ') + 1).trim())
    .some((remote) => remote !== '' && sameUrl(absoluteUrl(remote, root), url));
}

/**
 * The identity of the repository at `root` as every machine can name it, from its sync remote's
 * URL: undefined when it has no such remote. See `canonicalRemote`.
 */
export async function remoteKey(root: string): Promise<string | undefined> {
  const remote = loadRepoConfig(root).sync?.remote ?? DEFAULT_SYNC_REMOTE;
  const got = await git(root, ['remote', 'get-url', '--', remote], {
    okExitCodes: [2, 128],
    timeoutMs: LOCAL_MS,
  });
  const url = got.stdout.trim();
  return got.exitCode !== 0 || url === '' ? undefined : canonicalRemote(absoluteUrl(url, root));
}

/**
 * One name for the spellings of one remote, with no secret in it: `git@github.com:o/r.git`,
 * `ssh://git@github.com:22/o/r` and `https://user:token@GitHub.com/o/r/` are all
 * `github.com/o/r` (host lower-cased, user, password and port dropped, no `.git` or trailing
 * slash); a local path stays an absolute path.
 */
export function canonicalRemote(url: string): string {
  const trimmed = plainUrl(url);
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed);
  if (scheme && !/^file:/i.test(trimmed)) {
    try {
      const parsed = new URL(trimmed);
      return `${parsed.hostname.toLowerCase()}/${decodeURIComponent(parsed.pathname).replace(/^\/+/, '')}`.replace(
        /\/+$/,
        '',
      );
    } catch {
      return trimmed;
    }
  }
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(trimmed);
  if (!scheme && scp !== null && !isAbsolute(trimmed))
    return `${(scp[1] ?? '').toLowerCase()}/${(scp[2] ?? '').replace(/^\/+/, '')}`;
  return trimmed.replace(/^file:\/\//i, '');
}

/** Two spellings of one remote: a trailing slash or `.git` does not make another repository. */
function sameUrl(a: string, b: string): boolean {
  return plainUrl(a) === plainUrl(b);
}

function plainUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\.git$/, '');
}

/** A remote given as a relative local path means one thing on this machine only: made absolute. */
function absoluteUrl(url: string, root: string): string {
  const isUrl =
    /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\\]+@[^:]+:/.test(url) || /^[^/\\.][^/\\:]*:/.test(url);
  return isUrl || isAbsolute(url) ? url : resolve(root, url);
}

function basename(root: string): string {
  return root.split('/').filter(Boolean).pop() ?? 'project';
}

function safeName(project: string): string {
  const name = project.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[.-]+/, '');
  return name === '' ? 'project' : name.slice(0, 100);
}
