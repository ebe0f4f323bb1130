/**
 * The git steps of landing work, each with the real git CLI and argument arrays: the session's
 * uncommitted work committed on its branch, a scratch worktree for the merge, one merge (or
 * squash) in it, and the compare-and-swap that advances the base branch. Nothing here runs a
 * merge in the user's own checkout: at most a fast-forward, and only when it is clean.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GitError, SessionStateError } from '../shared/errors.js';
import { git, gitOut, snapshotCommit, snapshotWork } from '../worktrees/index.js';

/** The commit a branch points at, or undefined when there is no such branch. */
export async function branchTip(repo: string, branch: string): Promise<string | undefined> {
  const found = await git(
    repo,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`],
    { okExitCodes: [1] },
  );
  return found.exitCode === 0 ? found.stdout.trim() : undefined;
}

export async function isAncestor(repo: string, ancestor: string, descendant: string): Promise<boolean> {
  return (
    (await git(repo, ['merge-base', '--is-ancestor', ancestor, descendant], { okExitCodes: [1] }))
      .exitCode === 0
  );
}

/**
 * Commits the session's uncommitted and untracked work on its own branch, as if the agent had
 * run `git add --all && git commit`: the branch moves (compare-and-swap) to a snapshot commit
 * and the worktree's index is reset to it, so the worktree reads clean and its files stay as
 * they are. Only for a session whose agent is not mid-turn. Returns the branch's tip.
 */
export async function commitSessionWork(input: {
  worktree: string;
  branch: string;
  name: string;
  prompt: string;
}): Promise<{ tip: string; committed: boolean }> {
  const { worktree, branch } = input;
  const head = await git(worktree, ['symbolic-ref', '--quiet', 'HEAD'], { okExitCodes: [1] });
  if (head.stdout.trim() !== `refs/heads/${branch}`) {
    const on = head.exitCode === 0 ? head.stdout.trim().replace(/^refs\/heads\//, '') : 'a detached HEAD';
    throw new SessionStateError(
      `The worktree of ${input.name} (${worktree}) is on ${on}, not on its branch ${branch}; check out ${branch} there first.`,
    );
  }
  const snapshot = await snapshotWork(worktree);
  const commit = await snapshotCommit(worktree, snapshot, workMessage(input.name, input.prompt));
  if (commit === snapshot.head) return { tip: commit, committed: false };
  await git(worktree, [
    'update-ref',
    '-m',
    'baton: commit uncommitted work before landing',
    `refs/heads/${branch}`,
    commit,
    snapshot.head,
  ]);
  // The index now matches the new tip; files on disk already do.
  await git(worktree, ['read-tree', commit]);
  await git(worktree, ['update-index', '-q', '--refresh'], { okExitCodes: [1] });
  return { tip: commit, committed: true };
}

/**
 * The message of the commit that holds a session's uncommitted work. A landing that fast-forwards
 * puts this very commit at the tip of the base, so it is titled by what the session was asked to do
 * (its prompt's first line), not by bookkeeping; which session it was goes in a trailer
 * (`git log --format='%(trailers:key=Baton-Session,valueonly)'`). Decision 193, "Every disabled button
 * says why, and a landed commit is titled by its prompt".
 */
export function workMessage(name: string, prompt: string): string {
  return `${subjectOf(prompt, name)}\n\nThe work session ${name} left uncommitted, committed by Baton to land it.\n\nBaton-Session: ${name}`;
}

/** A commit subject from a prompt: its first non-empty line, at most 100 characters; `fallback` when it has none. */
export function subjectOf(prompt: string, fallback: string): string {
  const line =
    prompt
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? fallback;
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** A detached worktree at `commit` for `fn`, removed afterwards whatever happens. */
export async function withScratchWorktree<T>(
  repo: string,
  path: string,
  commit: string,
  fn: (scratch: string) => Promise<T>,
): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  if (existsSync(path)) await removeScratch(repo, path);
  await git(repo, ['worktree', 'add', '--quiet', '--detach', path, commit]);
  try {
    return await fn(path);
  } finally {
    await removeScratch(repo, path);
  }
}

/**
 * Scratch worktrees a killed supervisor left in `folder`: each is removed from its repository
 * (nothing in one is anyone's work: the base only moves after a merge is done). Returns how many.
 */
export async function removeStaleScratches(folder: string): Promise<number> {
  if (!existsSync(folder)) return 0;
  let removed = 0;
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const common = await git(path, ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      okExitCodes: [128],
    }).catch(() => undefined);
    const dir = common?.exitCode === 0 ? common.stdout.trim() : '';
    if (dir.endsWith('/.git')) await removeScratch(dirname(dir), path);
    else rmSync(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

async function removeScratch(repo: string, path: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', '--force', path], { okExitCodes: [128] });
  rmSync(path, { recursive: true, force: true });
  await git(repo, ['worktree', 'prune']);
}

/** `-c user.name=… -c user.email=…` when the repository has no identity of its own to commit with. */
export async function identityArgs(repo: string): Promise<string[]> {
  const ident = await git(repo, ['var', 'GIT_COMMITTER_IDENT'], { okExitCodes: [128] });
  return ident.exitCode === 0 ? [] : ['-c', 'user.name=Baton', '-c', 'user.email=baton@localhost'];
}

export type MergeStep = { ok: true; head: string } | { ok: false; files: string[]; detail: string };

/**
 * Merges `tip` into the scratch worktree's HEAD. Default: git's own (a fast-forward when the base
 * has not moved, else a merge commit with `message`); `squash`: one commit with `message`.
 */
export async function mergeInto(
  scratch: string,
  tip: string,
  options: { squash: boolean; message: string; identity: string[] },
): Promise<MergeStep> {
  const { identity, message } = options;
  // The repository's check is the gate: hooks (which may need tools the scratch worktree lacks) are not run here.
  const args = options.squash
    ? ['merge', '--squash', '--no-commit', tip]
    : ['merge', '--no-verify', '--no-edit', '-m', message, tip];
  const merged = await git(scratch, [...identity, ...args], { okExitCodes: [1, 2, 128] });
  if (merged.exitCode !== 0) {
    const files = (await gitOut(scratch, ['diff', '--name-only', '--diff-filter=U']))
      .split('\n')
      .filter(Boolean);
    await git(scratch, ['reset', '--hard', '--quiet', 'HEAD']);
    const detail = (merged.stdout + merged.stderr).trim();
    if (files.length === 0 && merged.exitCode !== 1)
      throw new GitError(`git merge failed: ${detail.split('\n')[0] ?? ''}`, args, merged.stderr);
    return { ok: false, files, detail };
  }
  if (options.squash) {
    const staged = await git(scratch, ['diff', '--cached', '--quiet'], { okExitCodes: [1] });
    if (staged.exitCode === 1)
      await git(scratch, [...identity, 'commit', '--quiet', '--no-verify', '-m', message]);
  }
  return { ok: true, head: await gitOut(scratch, ['rev-parse', 'HEAD']) };
}

/** The files two commits both change in incompatible ways (`git merge-tree`), without touching any worktree. */
export async function conflictsBetween(
  repo: string,
  ours: string,
  theirs: string,
): Promise<{ files: string[]; tree: string }> {
  const result = await git(
    repo,
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs],
    { okExitCodes: [1] },
  );
  const [tree = '', ...files] = result.stdout.trim().split('\n');
  return { tree, files: result.exitCode === 0 ? [] : files.filter(Boolean) };
}

/** The worktree (main or linked) that has `branch` checked out, if any. */
export async function checkoutOf(repo: string, branch: string): Promise<string | undefined> {
  const list = await gitOut(repo, ['worktree', 'list', '--porcelain']);
  let path: string | undefined;
  for (const line of list.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}`) return path;
  }
  return undefined;
}

/** Tracked files changed (staged or not) in a checkout; untracked files do not stop a fast-forward unless in its way. */
export async function dirtyFiles(checkout: string): Promise<string[]> {
  // Not trimmed: each line starts with its two status columns, the first often a space.
  const { stdout } = await git(checkout, ['status', '--porcelain', '--untracked-files=no']);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(3));
}

export class DirtyCheckoutError extends SessionStateError {
  constructor(
    readonly checkout: string,
    readonly branch: string,
    readonly files: string[],
  ) {
    super(
      `${branch} is checked out in ${checkout}, which has uncommitted changes (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''}); Baton will not move a branch under changed files. Commit or stash them there, then merge again.`,
      { reason: 'dirty_checkout', checkout, branch, files },
    );
  }
}

/**
 * Moves `base` from `from` to `to` (a descendant): in the checkout that has it checked out, by a
 * fast-forward there and only when it is clean; elsewhere by `update-ref <new> <old>`. Answers
 * `moved` when the base is no longer at `from` (nothing changed), so the caller merges again.
 */
export async function advanceBase(
  repo: string,
  base: string,
  from: string,
  to: string,
): Promise<'advanced' | 'moved'> {
  const checkout = await checkoutOf(repo, base);
  if (checkout === undefined) {
    const cas = await git(
      repo,
      ['update-ref', '-m', `baton: merge into ${base}`, `refs/heads/${base}`, to, from],
      { okExitCodes: [128] },
    );
    return cas.exitCode === 0 ? 'advanced' : 'moved';
  }
  const dirty = await dirtyFiles(checkout);
  if (dirty.length > 0) throw new DirtyCheckoutError(checkout, base, dirty);
  if ((await gitOut(checkout, ['rev-parse', 'HEAD'])) !== from) return 'moved';
  const ff = await git(checkout, ['merge', '--ff-only', '--quiet', to], { okExitCodes: [1, 128] });
  if (ff.exitCode !== 0) {
    throw new SessionStateError(
      `Could not fast-forward ${base} in ${checkout}; nothing was changed there: ${(ff.stderr || ff.stdout).trim().split('\n').slice(0, 3).join(' ')}`,
      {
        reason: 'fast_forward_refused',
        checkout,
      },
    );
  }
  return 'advanced';
}
