/**
 * Worktrees: each session works on its own branch in its own git worktree, outside the
 * repository folder. Removing one first saves any uncommitted work as a snapshot commit.
 */
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { GitError, InvalidInputError, NotAGitRepositoryError, SessionStateError } from '../shared/errors.js';
import { git, gitOut } from './git.js';
import { snapshotCommit, snapshotWork } from './snapshot.js';

export { git, gitOut, listSettings, type GitOptions, type GitResult } from './git.js';
export type { SharedListing } from './git-guard.js';
export { anchorWorktree, anchoredGitDirs, setWorktreeResolver } from './git-guard.js';
export { startGitRunner, stopGitRunner } from './git-runner.js';
export { inBackground, inForeground } from './git-priority.js';
export {
  snapshotCommit,
  snapshotWork,
  sweepSnapshotFolders,
  workTreeOr,
  type WorkSnapshot,
} from './snapshot.js';
export { whileRewriting } from './rewrites.js';

export interface RepositoryInfo {
  /** The main worktree's top folder: the project's identity. */
  root: string;
  head: string;
  /** The checked-out branch, or HEAD when detached. */
  branch: string;
}

/** Finds the repository containing `path`, resolving linked worktrees to the main one. */
export async function findRepository(path: string): Promise<RepositoryInfo> {
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new InvalidInputError(`${path} is not a directory`);
  // Most often `path` is the main checkout itself: one git call then answers everything, its
  // HEAD included (dispatch latency is mostly process start-ups; decision 310). Anything else —
  // a linked worktree, no commit yet, not a repository — takes the two calls below, whose
  // errors say what is wrong.
  const quick = await git(
    path,
    [
      'rev-parse',
      '--path-format=absolute',
      '--git-common-dir',
      '--is-bare-repository',
      '--show-toplevel',
      'HEAD^{commit}',
      '--abbrev-ref',
      'HEAD',
      '--',
    ],
    { okExitCodes: [1, 128] },
  ).catch(() => undefined);
  if (quick?.exitCode === 0) {
    const [commonDir = '', bare = '', topLevel = '', commit = '', branch] = quick.stdout.trim().split('\n');
    if (
      bare === 'false' &&
      commonDir === `${topLevel}/.git` &&
      /^[0-9a-f]{40,64}$/.test(commit) &&
      branch !== undefined
    )
      return { root: topLevel, head: commit, branch: branch === 'HEAD' ? 'HEAD' : branch };
  }
  let lines: string[];
  try {
    const out = await gitOut(path, [
      'rev-parse',
      '--path-format=absolute',
      '--git-common-dir',
      '--is-bare-repository',
      '--show-toplevel',
    ]);
    lines = out.split('\n');
  } catch (error) {
    if (error instanceof GitError) {
      if (/must be run in a work tree/.test(error.stderr))
        throw new InvalidInputError(
          `${path} is inside a bare repository or a .git folder; run baton from a checkout`,
        );
      throw new NotAGitRepositoryError(path);
    }
    throw error;
  }
  const [commonDir = '', bare = '', topLevel = ''] = lines;
  if (bare === 'true') throw new InvalidInputError(`${path} is a bare repository; run baton from a checkout`);
  const root = commonDir.endsWith('/.git') ? dirname(commonDir) : topLevel;
  const head = await git(root, ['rev-parse', 'HEAD^{commit}', '--abbrev-ref', 'HEAD', '--'], {
    okExitCodes: [1, 128],
  });
  const [commit, branch] = head.stdout.trim().split('\n');
  if (head.exitCode !== 0 || commit === undefined || !/^[0-9a-f]{40,64}$/.test(commit)) {
    throw new InvalidInputError(`${root} has no commits yet; make a first commit so sessions have a base`);
  }
  return { root, head: commit, branch: branch === undefined || branch === 'HEAD' ? 'HEAD' : branch };
}

export async function resolveCommit(repo: string, ref: string): Promise<string> {
  if (ref.startsWith('-')) throw new InvalidInputError(`Invalid base "${ref}": a ref cannot start with '-'`);
  try {
    return await gitOut(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  } catch {
    throw new InvalidInputError(`Unknown base "${ref}": no such branch, tag or commit in ${repo}`);
  }
}

export interface CreateWorktreeInput {
  repo: string;
  path: string;
  branch: string;
  baseCommit: string;
  /** Check out this existing branch instead of creating one. */
  existingBranch?: boolean;
}

export async function createWorktree(input: CreateWorktreeInput): Promise<void> {
  if (existsSync(input.path))
    throw new SessionStateError(
      `Worktree folder ${input.path} already exists; remove it or pick another name`,
    );
  if (input.existingBranch === true) {
    mkdirSync(dirname(input.path), { recursive: true });
    const added = await git(input.repo, ['worktree', 'add', '--quiet', input.path, input.branch], {
      okExitCodes: [128],
    });
    if (added.exitCode !== 0) {
      throw new SessionStateError(
        `Branch ${input.branch} cannot get a worktree: ${added.stderr.trim().split('\n').at(-1) ?? ''}. A branch checked out elsewhere (your main checkout, say) cannot be checked out twice; switch that checkout away from it or use --in-place.`,
      );
    }
    return;
  }
  mkdirSync(dirname(input.path), { recursive: true });
  // No `show-ref` first: `worktree add -b` refuses a branch that exists before it makes anything,
  // and one git process fewer is a tenth of a small repository's dispatch (decision 345). Its
  // message is read in git's own words (`LC_ALL=C`), since telling the user's branch from one
  // this call made decides whether the cleanup below may delete it.
  try {
    await git(input.repo, ['worktree', 'add', '--quiet', '-b', input.branch, input.path, input.baseCommit], {
      env: { LC_ALL: 'C' },
    });
  } catch (error) {
    if (error instanceof GitError && BRANCH_EXISTS.test(error.stderr))
      throw new SessionStateError(
        `Branch ${input.branch} already exists in ${input.repo}; pick another --name or delete the branch`,
      );
    // Failed midway (a full disk, say), git leaves the new branch and perhaps a partial folder.
    // Both are ours alone (the branch did not exist a moment ago, and has no commit of its own).
    rmSync(input.path, { recursive: true, force: true });
    await git(input.repo, ['worktree', 'prune']).catch(() => undefined);
    await git(input.repo, ['branch', '-D', input.branch]).catch(() => undefined);
    throw error;
  }
}

/** git's refusal of `-b` for a branch that exists (builtin/branch.c, in the C locale). */
const BRANCH_EXISTS = /^fatal: a branch named '.*' already exists$/m;

export interface RemoveResult {
  snapshotRef?: string | undefined;
  snapshotCommit?: string | undefined;
  branchDeleted: boolean;
  /** What could not be done, and what was kept instead (a repository gone: decision 168). */
  notes?: string[];
}

/**
 * Removes a session's worktree. Uncommitted and untracked work is first committed (without
 * touching the branch or the worktree's index) to `refs/baton/snapshots/<name>`.
 */
export async function removeWorktree(input: {
  repo: string;
  path: string;
  branch: string;
  baseCommit: string;
  snapshotName: string;
  /** The branch is the user's own (`--branch`): never deleted, even with nothing new on it. */
  keepBranch?: boolean;
  /** Where the worktree's files are kept when its repository is gone (no snapshot ref can be made). */
  keepFilesIn?: string;
}): Promise<RemoveResult> {
  if (!(await isRepository(input.repo))) return removeOrphanWorktree(input);
  let snapshot: { ref: string; commit: string } | undefined;
  if (existsSync(input.path)) {
    snapshot = await snapshotUncommitted(input.repo, input.path, input.snapshotName);
    await git(input.repo, ['worktree', 'remove', '--force', input.path]);
  }
  await git(input.repo, ['worktree', 'prune']);
  const branchDeleted =
    input.keepBranch === true ? false : await deleteBranchIfEmpty(input.repo, input.branch, input.baseCommit);
  return { snapshotRef: snapshot?.ref, snapshotCommit: snapshot?.commit, branchDeleted };
}

async function isRepository(repo: string): Promise<boolean> {
  if (!existsSync(repo)) return false;
  const found = await git(repo, ['rev-parse', '--git-dir'], { okExitCodes: [128] }).catch(() => undefined);
  return found?.exitCode === 0;
}

/**
 * A worktree whose repository is gone (deleted or moved): git can neither snapshot it nor
 * delete its branch. What is Baton's goes; the files, which may hold the only copy of the work,
 * are moved to `keepFilesIn` rather than deleted; and the result says what could not be done.
 */
function removeOrphanWorktree(input: { repo: string; path: string; keepFilesIn?: string }): RemoveResult {
  const notes = [
    `The repository ${input.repo} is gone: no snapshot ref could be made and no branch was deleted.`,
  ];
  if (existsSync(input.path)) {
    if (input.keepFilesIn === undefined) {
      notes.push(`The worktree ${input.path} was left where it is.`);
    } else {
      mkdirSync(dirname(input.keepFilesIn), { recursive: true });
      try {
        renameSync(input.path, input.keepFilesIn);
      } catch {
        // Another filesystem: copied whole, then removed.
        cpSync(input.path, input.keepFilesIn, { recursive: true });
        rmSync(input.path, { recursive: true, force: true });
      }
      notes.push(`The worktree's files were kept in ${input.keepFilesIn}.`);
    }
  }
  return { branchDeleted: false, notes };
}

/**
 * How long each git call of the removal snapshot may take. A git that hangs (a stuck lock, a
 * filesystem gone away) fails the removal, and the worktree stays where it is: nothing is
 * deleted without its copy.
 */
const REMOVAL_SNAPSHOT_TIMEOUT_MS = 300_000;

/** The worktree's work as a commit on its head (the same snapshot as diff and radar), pinned by a ref; none when it holds nothing uncommitted. */
async function snapshotUncommitted(
  repo: string,
  worktree: string,
  name: string,
): Promise<{ ref: string; commit: string } | undefined> {
  const limit = { timeoutMs: REMOVAL_SNAPSHOT_TIMEOUT_MS };
  const work = await snapshotWork(worktree, limit);
  const commit = await snapshotCommit(worktree, work, `baton: uncommitted work of session ${name}`, limit);
  if (commit === work.head) return undefined;
  const ref = await freeSnapshotRef(repo, name);
  await git(repo, ['update-ref', ref, commit], limit);
  return { ref, commit };
}

async function freeSnapshotRef(repo: string, name: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const ref = `refs/baton/snapshots/${name}${attempt === 0 ? '' : `-${attempt + 1}`}`;
    const found = await git(repo, ['show-ref', '--verify', '--quiet', ref], { okExitCodes: [1] });
    if (found.exitCode === 1) return ref;
  }
}

/** Deletes the session branch only when it holds no commits beyond its base. */
async function deleteBranchIfEmpty(repo: string, branch: string, baseCommit: string): Promise<boolean> {
  const ref = `refs/heads/${branch}`;
  const exists = await git(repo, ['show-ref', '--verify', '--quiet', ref], { okExitCodes: [1] });
  if (exists.exitCode !== 0) return false;
  const tip = await gitOut(repo, ['rev-parse', ref]);
  if (tip !== baseCommit) return false;
  await git(repo, ['branch', '-D', '--', branch]);
  return true;
}

export interface ChangedFile {
  path: string;
  status: string;
}

/** Files changed in the worktree against the session's base: committed, staged, unstaged, untracked. */
export async function changedFiles(worktree: string, baseCommit: string): Promise<ChangedFile[]> {
  if (!existsSync(worktree)) return [];
  const [diff, untracked] = await Promise.all([
    gitOut(worktree, ['diff', '--name-status', '--no-renames', baseCommit, '--']),
    gitOut(worktree, ['ls-files', '--others', '--exclude-standard']),
  ]);
  const files: ChangedFile[] = [];
  for (const line of diff.split('\n')) {
    const [status, path] = line.split('\t');
    if (status && path) files.push({ path, status });
  }
  for (const path of untracked.split('\n')) if (path) files.push({ path, status: '?' });
  return files;
}

export function projectWorktreePath(worktreesDir: string, project: string, sessionName: string): string {
  const path = resolve(worktreesDir, project, sessionName);
  if (!isAbsolute(path) || !path.startsWith(resolve(worktreesDir) + '/')) {
    throw new InvalidInputError(`Refusing worktree path outside ${worktreesDir}`);
  }
  return path;
}
export { applyWork, mainCheckoutWork, uncommittedCount } from './carry.js';
export { listSnapshots, restoreSnapshot, SNAPSHOT_PREFIX, type SnapshotInfo } from './archive.js';
export { listCheckpoints, restoreCheckpoint, takeCheckpoint, type CheckpointInfo } from './checkpoint.js';
export { worktreeDiff } from './diff.js';
export { diffStat, sessionDiffStat } from './diffstat.js';
export {
  contains,
  operationInProgress,
  rebaseWorktree,
  type MidOperation,
  type RebaseOutcome,
} from './rebase.js';
