/**
 * A session's work as one git tree, uncommitted and untracked files included, without touching
 * its worktree or its index: the worktree's index is copied to a private file (so git's stat
 * cache still spares it from re-hashing unchanged files), `git add --all` runs against the copy,
 * and `git write-tree` stores the result. The tree id is a cheap, exact cache key for the work:
 * two snapshots of unchanged work give the same id.
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { GitError } from '../shared/errors.js';
import { isProcessAlive } from '../shared/process.js';
import { git, gitOut, listSettings } from './git.js';
import type { SharedListing } from './git-guard.js';
import { readSettled } from './rewrites.js';

const FOLDER_PREFIX = 'baton-snapshot-';

export interface WorkSnapshot {
  /** The branch tip the work sits on. */
  head: string;
  /** The tree of the work as it is on disk: committed, staged, unstaged and untracked (ignored files left out). */
  tree: string;
  /** The head's own tree, read with the head: a snapshot commit then needs no call to learn whether the work is the head's. */
  headTree?: string;
}

/**
 * `timeoutMs`: each git call is stopped after this long and the snapshot fails (see `git()`), and so
 * is a wait for Baton's own rebase of the worktree to end (decision 463); unset, no limit.
 */
export async function snapshotWork(
  worktree: string,
  options: { timeoutMs?: number } = {},
): Promise<WorkSnapshot> {
  return readSettled(worktree, () => readWork(worktree, options), options.timeoutMs);
}

async function readWork(worktree: string, options: { timeoutMs?: number }): Promise<WorkSnapshot> {
  const limit = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  // The settings are listed once for the snapshot's calls, beside its first (decision 449).
  const listing: SharedListing = {};
  const [parsed] = await Promise.all([
    gitOut(worktree, ['rev-parse', 'HEAD', 'HEAD^{tree}', '--git-path', 'index'], limit),
    listSettings(worktree, listing, limit),
  ]);
  const [head = '', headTree = '', indexPath = ''] = parsed.split('\n');
  const realIndex = isAbsolute(indexPath) ? indexPath : join(worktree, indexPath);
  // Named by this process, so a sweep elsewhere leaves it alone while it runs.
  const folder = mkdtempSync(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  const index = join(folder, 'index');
  const env = { GIT_INDEX_FILE: index };
  try {
    if (existsSync(realIndex)) {
      copyFileSync(realIndex, index);
      // Git trusts an entry's cached stat unless the file changed at or after the index was
      // written ("racily clean"); a copy dated now would hide an edit made in the same second
      // that kept the file's size. The copy keeps the index's own time.
      const { atime, mtimeMs } = statSync(realIndex);
      // Rounded down to the second: the safe side for git's comparison.
      utimesSync(index, atime, Math.floor(mtimeMs) / 1000);
    } else await git(worktree, ['read-tree', 'HEAD'], { env, listing, ...limit });
    await git(worktree, ['add', '--all', '--', '.'], { env, listing, ...limit });
    const tree = await gitOut(worktree, ['write-tree'], { env, listing, ...limit });
    return { head, tree, headTree };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The tree of the work in `worktree` (as `snapshotWork`), or `fallback` (a ref: the session's
 * branch) once the worktree is gone or when git cannot read it — a removal under way takes the
 * worktree off the repository's list before its folder goes, and the guard then runs no git there
 * (decision 200). `unreadable` hears why the fallback was taken.
 */
export async function workTreeOr(
  worktree: string,
  fallback: string,
  unreadable: (error: GitError) => void = () => undefined,
): Promise<string> {
  if (!existsSync(worktree)) return fallback;
  try {
    return (await snapshotWork(worktree)).tree;
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    unreadable(error);
    return fallback;
  }
}

/**
 * The snapshot as a commit on top of its head (nothing points at it; pin it with a ref to keep
 * it). `unsigned`: a throwaway commit (the radar's, for a merge-tree) is never signed, whatever
 * the user's `commit.gpgSign`, so git runs no signer for it and needs no look at the settings.
 */
export async function snapshotCommit(
  worktree: string,
  snapshot: WorkSnapshot,
  message: string,
  options: { timeoutMs?: number; unsigned?: boolean } = {},
): Promise<string> {
  const limit = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  const headTree =
    snapshot.headTree ?? (await gitOut(worktree, ['rev-parse', `${snapshot.head}^{tree}`], limit));
  if (headTree === snapshot.tree) return snapshot.head;
  return gitOut(
    worktree,
    [
      '-c',
      'user.name=Baton',
      '-c',
      'user.email=baton@localhost',
      'commit-tree',
      ...(options.unsigned === true ? ['--no-gpg-sign'] : []),
      snapshot.tree,
      '-p',
      snapshot.head,
      '-m',
      message,
    ],
    limit,
  );
}

/**
 * The private index copies that processes killed mid-snapshot left behind (the `finally` above
 * never ran): this user's folders of ours in the temp folder older than `maxAgeMs` whose process
 * (named in the folder's name) no longer runs. Age alone is not enough: every supervisor and host
 * of the user shares the temp folder, and one whose clock runs ahead (a test under a faked clock, a
 * clock set forward) took another process's folder in the middle of its `git add`. Returns how many
 * were removed.
 */
export function sweepSnapshotFolders(now = Date.now(), maxAgeMs = 60 * 60_000, dir = tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.startsWith(FOLDER_PREFIX));
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.() || now - stat.mtimeMs < maxAgeMs) continue;
      const owner = /^\d+(?=-)/.exec(name.slice(FOLDER_PREFIX.length))?.[0];
      if (owner !== undefined && isProcessAlive(Number(owner))) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone meanwhile, or not ours to remove: left as it is.
    }
  }
  return removed;
}
