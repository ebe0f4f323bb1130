/**
 * One push of a session's work to the shared remote: its branch tip to `refs/heads/baton/<name>`
 * and, when it has uncommitted work, a snapshot commit of that work (tree: the work as it is on
 * disk; parent: the branch tip) to `refs/baton/snapshots/<session id>`; a snapshot left from an
 * earlier push is deleted when the work is all committed, so a restore never applies stale work.
 *
 * Nothing on the remote is lost: the branch moves only from a value Baton knows (absent, the
 * commit this session pushed last, or a commit the branch already contains), and the push holds
 * git a lease on exactly that value (`--force-with-lease=<ref>:<expected>`), so a push by someone
 * else between the look and the push is refused by the remote too. Both refs move in one
 * `--atomic` push. Every git call has a time limit; git gets argument arrays only.
 */
import { existsSync } from 'node:fs';
import { remoteUrl } from '../merge/index.js';
import { BatonError, GitError, InvalidInputError } from '../shared/errors.js';
import { git, gitOut, snapshotWork } from '../worktrees/index.js';

export type SyncFailureKind = 'no_remote' | 'moved' | 'rejected' | 'timed_out' | 'error';

/** A push that did not happen, with why in words a person can act on. */
export class SyncPushError extends Error {
  constructor(
    readonly kind: SyncFailureKind,
    message: string,
  ) {
    super(message);
  }
}

export interface PushInput {
  repo: string;
  /** The session's worktree; when it is gone only the branch is pushed. */
  worktree: string;
  branch: string;
  name: string;
  sessionId: string;
  remote: string;
  /** The branch commit this session pushed last: the remote may be moved from it even when the branch was rewritten. */
  lastPushed?: string | undefined;
  /** Push over whatever the remote branch holds (`baton sync --now --force`). */
  force?: boolean;
  /** Runs the read of the worktree (the snapshot): the caller holds its removal off meanwhile. */
  readWorktree?: <T>(read: () => Promise<T>) => Promise<T>;
  /** Each local git call's limit; the push itself gets `networkTimeoutMs`. */
  timeoutMs?: number;
  networkTimeoutMs?: number;
}

export interface PushOutcome {
  ref: string;
  commit: string;
  snapshotRef: string | null;
  snapshotCommit: string | null;
}

export const remoteBranchRef = (name: string): string => `refs/heads/baton/${name}`;
export const remoteSnapshotRef = (sessionId: string): string => `refs/baton/snapshots/${sessionId}`;

export async function pushSessionWork(input: PushInput): Promise<PushOutcome> {
  const local = { timeoutMs: input.timeoutMs ?? 30_000 };
  const network = { timeoutMs: input.networkTimeoutMs ?? 120_000 };
  return classify(input, async () => {
    await remoteUrl(input.repo, input.remote, 'sync', local.timeoutMs);
    const ref = remoteBranchRef(input.name);
    const snapshotRef = remoteSnapshotRef(input.sessionId);
    const read = input.readWorktree ?? (<T>(fn: () => Promise<T>): Promise<T> => fn());
    const work = await read(() => localWork(input, local.timeoutMs));
    const remote = await remoteRefs(input.repo, input.remote, [ref, snapshotRef], network.timeoutMs);
    const branchFrom = remote.get(ref);
    if (!(input.force === true || (await mayMove(input, branchFrom, work.commit, local.timeoutMs)))) {
      throw new SyncPushError(
        'moved',
        `the remote's ${ref.slice('refs/heads/'.length)} is at ${short(branchFrom)}, which this session did not push and its branch does not contain: someone else moved it, and Baton leaves it alone. Fetch it and look, or push over it with \`baton sync ${input.name} --now --force\`.`,
      );
    }
    const snapshotFrom = remote.get(snapshotRef);
    const specs = [`${work.commit}:${ref}`];
    const leases = [`--force-with-lease=${ref}:${branchFrom ?? ''}`];
    if (work.snapshot !== null) {
      specs.push(`${work.snapshot}:${snapshotRef}`);
      leases.push(`--force-with-lease=${snapshotRef}:${snapshotFrom ?? ''}`);
    } else if (snapshotFrom !== undefined) {
      specs.push(`:${snapshotRef}`);
      leases.push(`--force-with-lease=${snapshotRef}:${snapshotFrom}`);
    }
    if (branchFrom === work.commit && snapshotFrom === (work.snapshot ?? undefined))
      return outcome(ref, snapshotRef, work);
    const pushed = await git(
      input.repo,
      ['push', '--porcelain', '--atomic', ...leases, '--', input.remote, ...specs],
      { okExitCodes: [1, 128], ...network },
    );
    if (pushed.exitCode !== 0) throw refusal(pushed.stdout, pushed.stderr, ref);
    return outcome(ref, snapshotRef, work);
  });
}

function outcome(
  ref: string,
  snapshotRef: string,
  work: { commit: string; snapshot: string | null },
): PushOutcome {
  return {
    ref,
    commit: work.commit,
    snapshotRef: work.snapshot === null ? null : snapshotRef,
    snapshotCommit: work.snapshot,
  };
}

/** The branch tip and, when the worktree holds uncommitted work, a snapshot commit on top of it. */
async function localWork(
  input: PushInput,
  timeoutMs: number,
): Promise<{ commit: string; snapshot: string | null }> {
  if (!existsSync(input.worktree)) {
    const tip = await git(
      input.repo,
      ['rev-parse', '--verify', '--quiet', `refs/heads/${input.branch}^{commit}`],
      { okExitCodes: [1], timeoutMs },
    );
    if (tip.exitCode !== 0)
      throw new SyncPushError(
        'error',
        `the branch ${input.branch} and its worktree are gone; there is nothing to push`,
      );
    return { commit: tip.stdout.trim(), snapshot: null };
  }
  const work = await snapshotWork(input.worktree, { timeoutMs });
  const [headTree = '', headDate = ''] = (
    await gitOut(input.worktree, ['log', '-1', '--format=%T%n%cI', work.head, '--'], { timeoutMs })
  ).split('\n');
  if (headTree === work.tree) return { commit: work.head, snapshot: null };
  const message = `baton: uncommitted work of session ${input.name}\n\nBaton-Session: ${input.sessionId}\nBaton-Name: ${input.name}\nBaton-Branch: baton/${input.name}\n`;
  // Dated as its parent, so the same work on the same tip is the same commit: a turn that changed
  // nothing pushes nothing.
  const dates = { GIT_AUTHOR_DATE: headDate, GIT_COMMITTER_DATE: headDate };
  const snapshot = await gitOut(
    input.worktree,
    [
      '-c',
      'user.name=Baton',
      '-c',
      'user.email=baton@localhost',
      'commit-tree',
      work.tree,
      '-p',
      work.head,
      '-m',
      message,
    ],
    { timeoutMs, env: dates },
  );
  // Removed while it was read, the tree may be half the work: the snapshot on the remote stays the last whole one.
  if (!existsSync(input.worktree))
    throw new SyncPushError(
      'error',
      `the worktree ${input.worktree} was removed while its work was read; nothing was pushed`,
    );
  return { commit: work.head, snapshot };
}

/** What the remote holds under these refs (absent ones are missing from the map). */
async function remoteRefs(
  repo: string,
  remote: string,
  refs: string[],
  timeoutMs: number,
): Promise<Map<string, string>> {
  const listed = await gitOut(repo, ['ls-remote', '--', remote, ...refs], { timeoutMs });
  const found = new Map<string, string>();
  for (const line of listed.split('\n')) {
    const [sha, name] = line.split('\t');
    if (sha !== undefined && name !== undefined && refs.includes(name)) found.set(name, sha);
  }
  return found;
}

/** The remote branch may move from `from` to `to` without losing anyone's work. */
async function mayMove(
  input: PushInput,
  from: string | undefined,
  to: string,
  timeoutMs: number,
): Promise<boolean> {
  if (from === undefined || from === to || from === input.lastPushed) return true;
  // A commit the branch already contains: moving on from it is a fast-forward.
  const known = await git(input.repo, ['cat-file', '-e', `${from}^{commit}`], {
    okExitCodes: [1, 128],
    timeoutMs,
  });
  if (known.exitCode !== 0) return false;
  const ancestor = await git(input.repo, ['merge-base', '--is-ancestor', from, to], {
    okExitCodes: [1, 128],
    timeoutMs,
  });
  return ancestor.exitCode === 0;
}

/** Why the remote refused, from `--porcelain`'s `!` lines (e.g. `[rejected] (stale info)`) or git's stderr. */
function refusal(stdout: string, stderr: string, ref: string): SyncPushError {
  const rejected = stdout.split('\n').filter((line) => line.startsWith('!'));
  if (rejected.some((line) => line.includes('stale info'))) {
    return new SyncPushError(
      'moved',
      `the remote's ${ref.slice('refs/heads/'.length)} changed while Baton was pushing: someone else moved it, and the push was refused rather than overwrite it`,
    );
  }
  const said = rejected.map((line) => line.split('\t').slice(2).join(' ')).filter(Boolean);
  const why = said.length > 0 ? said.join('; ') : (stderr || stdout).trim().split('\n').slice(-3).join(' ');
  return new SyncPushError('rejected', `the remote refused the push: ${why}`);
}

async function classify<T>(input: PushInput, push: () => Promise<T>): Promise<T> {
  try {
    return await push();
  } catch (error) {
    if (error instanceof SyncPushError) throw error;
    if (error instanceof InvalidInputError && error.data.reason === 'no_remote')
      throw new SyncPushError('no_remote', error.message);
    if (error instanceof GitError && / timed out after /.test(error.message))
      throw new SyncPushError('timed_out', `${error.message} (pushing to ${input.remote})`);
    if (error instanceof GitError) throw new SyncPushError('error', error.message);
    if (error instanceof BatonError) throw new SyncPushError('error', error.message);
    throw error;
  }
}

const short = (sha: string | undefined): string => (sha === undefined ? 'nothing' : sha.slice(0, 10));
