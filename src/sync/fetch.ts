/**
 * Another machine's sessions' work, read here from the shared remote as their last push left it
 * (decision 144, "The radar and review groups see other machines' sessions", and decision 143, "Another
 * machine's session lands here"). One fetch per repository brings every pushed session branch and
 * uncommitted-work snapshot under `refs/baton/remote/` (pruned of what the remote no longer has); a
 * session's work is then its branch tip and, when it had uncommitted work, the snapshot's tree — the
 * same `{ head, tree }` a local worktree's snapshot gives.
 */
import { remoteUrl } from '../merge/index.js';
import { DEFAULT_SYNC_REMOTE, loadRepoConfig } from '../projects/index.js';
import { GitError, InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { git, type WorkSnapshot } from '../worktrees/index.js';
import { fetchNotes } from './notes.js';

const log = createLogger('sync');

const FETCHED = 'refs/baton/remote';
export const fetchedBranchRef = (name: string): string => `${FETCHED}/heads/${name}`;
export const fetchedSnapshotRef = (sessionId: string): string => `${FETCHED}/snapshots/${sessionId}`;

const LOCAL_MS = 30_000;
const NETWORK_MS = 120_000;

/** The remote this repository syncs with (its `sync.remote`, else origin). */
export function syncRemoteOf(root: string): string {
  return loadRepoConfig(root).sync?.remote ?? DEFAULT_SYNC_REMOTE;
}

/** The fetch under way per repository: callers at once (radar, review, merge) take turns on its refs. */
const fetching = new Map<string, Promise<unknown>>();

/** Every session branch and snapshot the remote holds, fetched into `refs/baton/remote/`; an error names the remote. */
export function fetchPushedWork(root: string, options: { timeoutMs?: number } = {}): Promise<void> {
  const run = (fetching.get(root) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => fetchOnce(root, options));
  fetching.set(root, run);
  void run.catch(() => undefined).finally(() => fetching.get(root) === run && fetching.delete(root));
  return run;
}

async function fetchOnce(root: string, options: { timeoutMs?: number }): Promise<void> {
  const remote = syncRemoteOf(root);
  // By URL, not by name: a named fetch would also move the user's remote-tracking refs.
  const url = await remoteUrl(root, remote, 'sync', LOCAL_MS);
  try {
    await git(
      root,
      [
        'fetch',
        '--quiet',
        '--no-tags',
        '--prune',
        '--',
        url,
        `+refs/heads/baton/*:${FETCHED}/heads/*`,
        `+refs/baton/snapshots/*:${FETCHED}/snapshots/*`,
      ],
      {
        timeoutMs: options.timeoutMs ?? NETWORK_MS,
      },
    );
  } catch (error) {
    if (error instanceof GitError)
      throw new InvalidInputError(`Cannot fetch the sessions' pushed work from ${remote}: ${error.message}`, {
        remote,
      });
    throw error;
  }
  // Others' provenance notes come with their work (decision 294); a failure leaves this clone's
  // notes as they were and does not fail the fetch of the work.
  await fetchNotes(root, url, options).catch((error: unknown) =>
    log.warn('provenance notes not fetched', {
      remote,
      error: error instanceof Error ? error.message : String(error),
    }),
  );
}

export interface PushedWork extends WorkSnapshot {
  /** The pushed branch tip (also `head`), and the snapshot commit when uncommitted work was pushed. */
  snapshot: string | null;
}

/**
 * A session's work as last fetched: undefined when its branch was never pushed. The snapshot
 * counts only while its parent is the branch tip (a push moves both at once; a stale one is not
 * laid over newer commits).
 */
export async function pushedWork(
  root: string,
  session: { id: string; name: string },
): Promise<PushedWork | undefined> {
  const read = await git(
    root,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${fetchedBranchRef(session.name)}^{commit}`],
    { okExitCodes: [1], timeoutMs: LOCAL_MS },
  );
  if (read.exitCode !== 0) return undefined;
  const head = read.stdout.trim();
  const snap = await git(
    root,
    ['log', '-1', '--format=%H%n%P%n%T', '--end-of-options', fetchedSnapshotRef(session.id), '--'],
    { okExitCodes: [128], timeoutMs: LOCAL_MS },
  );
  const [snapshot, parents, snapshotTree] = snap.stdout.trim().split('\n');
  if (snap.exitCode === 0 && snapshot !== undefined && parents === head && snapshotTree !== undefined)
    return { head, tree: snapshotTree, snapshot };
  const tree = (
    await git(root, ['rev-parse', '--verify', `${head}^{tree}`], { timeoutMs: LOCAL_MS })
  ).stdout.trim();
  return { head, tree, snapshot: null };
}

/**
 * The remote's `branch` (the sync remote, by URL), fetched into `refs/baton/remote/bases/`: its
 * tip, or undefined when the remote cannot be reached or has no such branch.
 */
export async function fetchRemoteBranch(
  root: string,
  branch: string,
  options: { timeoutMs?: number } = {},
): Promise<string | undefined> {
  const ref = `${FETCHED}/bases/${branch}`;
  const run = (fetching.get(root) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      const url = await remoteUrl(root, syncRemoteOf(root), 'sync', LOCAL_MS).catch(() => undefined);
      if (url === undefined) return undefined;
      const got = await git(
        root,
        ['fetch', '--quiet', '--no-tags', '--', url, `+refs/heads/${branch}:${ref}`],
        { okExitCodes: [1, 128], timeoutMs: options.timeoutMs ?? NETWORK_MS },
      ).catch(() => undefined);
      if (got === undefined || got.exitCode !== 0) return undefined;
      return (
        await git(root, ['rev-parse', '--verify', `${ref}^{commit}`], { timeoutMs: LOCAL_MS })
      ).stdout.trim();
    });
  fetching.set(root, run);
  void run.catch(() => undefined).finally(() => fetching.get(root) === run && fetching.delete(root));
  return run;
}
