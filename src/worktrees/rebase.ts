/**
 * Keep-fresh's git half (decision 307, "Keep-fresh: an idle session's branch is rebased onto its
 * moving base; a conflict is aborted and handed over"): a session's branch rebased in its own
 * worktree onto a new base tip, its uncommitted work carried across, and — when anything stops
 * it (a conflict, an untracked file in the way, no committer identity) — the worktree put back
 * exactly as it was: the same branch tip, the same staged and unstaged changes, refs that
 * `--update-refs` moved moved back. Nothing here runs while the session's agent is at work; the
 * caller sees to that.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { GitError } from '../shared/errors.js';
import { pausePoint } from '../shared/test-points.js';
import { git, gitOut } from './git.js';
import { whileRewriting } from './rewrites.js';

/** Each git call stops after this long; a rebase of a session's branch is seconds at most. */
const STEP_TIMEOUT_MS = 120_000;

/** A git operation a worktree can be left in the middle of, by the marker git keeps in its git folder. */
const OPERATIONS: readonly [marker: string, operation: MidOperation][] = [
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['MERGE_HEAD', 'merge'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
];
export type MidOperation = 'rebase' | 'merge' | 'cherry-pick' | 'revert';

export type RebaseOutcome =
  /** The base tip is already in the branch: nothing to do. */
  | { kind: 'up_to_date'; head: string }
  /** Rebased: the branch moved from `from` to `head`, `commits` of its own on top of the base. */
  | { kind: 'rebased'; from: string; head: string; commits: number }
  /** The rebase (or the uncommitted work over it) conflicts in `files`; the worktree was put back. */
  | { kind: 'conflict'; files: string[]; restored: true }
  /** The worktree is mid-operation, left so by its agent or the user: not touched at all. */
  | { kind: 'mid_operation'; operation: MidOperation }
  /** It could not be tried or did not finish for another reason (`message`); the worktree was put back. */
  | { kind: 'failed'; message: string; restored: boolean };

/** The operation `worktree` is in the middle of, if any: a later command there would meet it. */
export async function operationInProgress(worktree: string): Promise<MidOperation | undefined> {
  const paths = (
    await gitOut(worktree, ['rev-parse', ...OPERATIONS.flatMap(([marker]) => ['--git-path', marker])], limit)
  ).split('\n');
  for (const [index, [, operation]] of OPERATIONS.entries()) {
    const path = paths[index] ?? '';
    if (path !== '' && existsSync(isAbsolute(path) ? path : join(worktree, path))) return operation;
  }
  return undefined;
}

/** Whether `commit` is already contained in the worktree's HEAD. */
export async function contains(worktree: string, commit: string): Promise<boolean> {
  const found = await git(worktree, ['merge-base', '--is-ancestor', commit, 'HEAD'], {
    ...limit,
    okExitCodes: [1],
  });
  return found.exitCode === 0;
}

interface Before {
  head: string;
  /** The base tip rebased onto: refs at or below it are not the rebase's to move. */
  onto: string;
  /** Local branches and their tips, so refs `--update-refs` moved can be moved back. */
  refs: Map<string, string>;
  /** The staged and unstaged changes to tracked files as a stash commit; undefined: none. */
  stash: string | undefined;
  status: string;
}

const limit = { timeoutMs: STEP_TIMEOUT_MS };

async function statusOf(worktree: string): Promise<string> {
  return gitOut(worktree, ['status', '--porcelain=v2', '--untracked-files=all'], limit);
}

async function localRefs(worktree: string): Promise<Map<string, string>> {
  const out = await gitOut(
    worktree,
    ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/'],
    limit,
  );
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [ref, commit] = line.split(' ');
    if (ref !== undefined && commit !== undefined && ref !== '') refs.set(ref, commit);
  }
  return refs;
}

/**
 * Rebases the branch checked out in `worktree` onto `onto` (`git rebase --update-refs`, so
 * branches stacked inside the rebased range follow). Uncommitted changes to tracked files are
 * set aside as a stash commit and laid back with their index; untracked files are left where they
 * are (git refuses to start a rebase that would overwrite one). The caller takes a checkpoint
 * first, so even a failed put-back loses nothing. Snapshots of the worktree wait from the stash
 * to the lay-back or put-back (decision 463): between them the worktree shows none of the work.
 */
export async function rebaseWorktree(worktree: string, onto: string): Promise<RebaseOutcome> {
  const operation = await operationInProgress(worktree);
  if (operation !== undefined) return { kind: 'mid_operation', operation };
  const branch = await git(worktree, ['symbolic-ref', '--quiet', 'HEAD'], { ...limit, okExitCodes: [1] });
  if (branch.exitCode !== 0)
    return {
      kind: 'failed',
      message: 'its worktree has no branch checked out (detached HEAD)',
      restored: true,
    };
  const head = await gitOut(worktree, ['rev-parse', 'HEAD'], limit);
  if (await contains(worktree, onto)) return { kind: 'up_to_date', head };
  return whileRewriting(worktree, () => rewrite(worktree, onto, head));
}

/** The rebase itself, from setting the uncommitted work aside to laying it back or putting all back. */
async function rewrite(worktree: string, onto: string, head: string): Promise<RebaseOutcome> {
  const stash =
    (await gitOut(worktree, ['stash', 'create', 'baton keep-fresh: uncommitted work'], limit)) || undefined;
  const before: Before = {
    head,
    onto,
    refs: await localRefs(worktree),
    stash,
    status: await statusOf(worktree),
  };
  try {
    if (stash !== undefined) await git(worktree, ['reset', '--quiet', '--hard', 'HEAD'], limit);
    // Race tests stop here: the uncommitted work set aside, the rebase about to move the branch.
    await pausePoint('rebase.set-aside');
    const rebase = await git(
      worktree,
      // No autostash (the stash above keeps the index too), no autosquash, no hooks (the guard's hooksPath).
      ['-c', 'rebase.autoStash=false', 'rebase', '--quiet', '--update-refs', '--no-autosquash', onto],
      { ...limit, okExitCodes: [1, 128] },
    );
    if (rebase.exitCode !== 0) {
      const files = await conflictedFiles(worktree);
      await restore(worktree, before);
      if (files.length > 0) return { kind: 'conflict', files, restored: true };
      return { kind: 'failed', message: firstLines(rebase.stderr || rebase.stdout), restored: true };
    }
    const rebased = await gitOut(worktree, ['rev-parse', 'HEAD'], limit);
    if (stash !== undefined) {
      // `--index`: what was staged is staged again. A conflict here is the uncommitted work's own.
      const applied = await git(worktree, ['stash', 'apply', '--index', '--quiet', stash], {
        ...limit,
        okExitCodes: [1],
      });
      if (applied.exitCode !== 0) {
        const files = await conflictedFiles(worktree);
        const changed = files.length > 0 ? files : await touchedByBoth(worktree, stash, head, rebased);
        await restore(worktree, before);
        return { kind: 'conflict', files: changed, restored: true };
      }
    }
    const commits = Number(await gitOut(worktree, ['rev-list', '--count', `${onto}..HEAD`], limit));
    return { kind: 'rebased', from: head, head: rebased, commits };
  } catch (error) {
    // A git call that failed outright (timed out, say): put back what can be, and say so.
    const restored = await restore(worktree, before).then(
      () => true,
      () => false,
    );
    return { kind: 'failed', message: error instanceof GitError ? error.message : String(error), restored };
  }
}

async function conflictedFiles(worktree: string): Promise<string[]> {
  const out = await gitOut(worktree, ['diff', '--name-only', '--diff-filter=U'], limit).catch(() => '');
  return out === '' ? [] : out.split('\n');
}

/** The files the uncommitted work changes that the rebase changed too: where laying it back stopped. */
async function touchedByBoth(
  worktree: string,
  stash: string,
  head: string,
  rebased: string,
): Promise<string[]> {
  const [mine, theirs] = await Promise.all([
    gitOut(worktree, ['diff', '--name-only', head, stash], limit),
    gitOut(worktree, ['diff', '--name-only', head, rebased], limit),
  ]);
  const moved = new Set(theirs.split('\n'));
  return mine.split('\n').filter((path) => path !== '' && moved.has(path));
}

/**
 * Puts the worktree back as `before` found it: no rebase in progress, the branch at its old tip,
 * refs `--update-refs` moved moved back, the uncommitted work laid back with its index. Checked:
 * a put-back that does not match what was there throws, and the caller reports it.
 */
async function restore(worktree: string, before: Before): Promise<void> {
  if ((await operationInProgress(worktree)) === 'rebase')
    await git(worktree, ['rebase', '--abort'], { ...limit, okExitCodes: [128] });
  await git(worktree, ['reset', '--quiet', '--hard', before.head], limit);
  // Only a ref `--update-refs` could have moved goes back: one that pointed into the rebased range
  // (below the old tip, not below the base). Anything else that moved meanwhile — the user's commit
  // on main, a landing, another session's agent on its branch — moved by someone else, and putting
  // it back dropped their commit. Each move back is conditional on the value just read.
  const now = await localRefs(worktree);
  for (const [ref, commit] of before.refs) {
    const current = now.get(ref);
    if (current === undefined || current === commit) continue;
    if (
      !(await isAncestor(worktree, commit, before.head)) ||
      (await isAncestor(worktree, commit, before.onto))
    )
      continue;
    // Moved forward from where it was: a commit made on it meanwhile (a stacked session's agent at
    // work), not the rebase's rewrite, which never descends from the old tip.
    if (await isAncestor(worktree, commit, current)) continue;
    await git(worktree, ['update-ref', ref, commit, current], { ...limit, okExitCodes: [1, 128] });
  }
  if (before.stash !== undefined)
    await git(worktree, ['stash', 'apply', '--index', '--quiet', before.stash], limit);
  const status = await statusOf(worktree);
  if (status !== before.status)
    throw new GitError('the worktree could not be put back exactly as it was', ['status'], status);
}

async function isAncestor(worktree: string, commit: string, of: string): Promise<boolean> {
  const found = await git(worktree, ['merge-base', '--is-ancestor', commit, of], {
    ...limit,
    okExitCodes: [1],
  });
  return found.exitCode === 0;
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 3).join(' ').slice(0, 300);
}
