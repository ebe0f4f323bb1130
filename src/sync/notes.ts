/**
 * Provenance notes travel with sync (decision 294, "Provenance notes travel with sync"): the
 * notes Baton writes at a landing (`refs/notes/baton`, decision 250) are fetched from the shared
 * remote, merged into this clone's with `git notes merge -s cat_sort_uniq` — every note of either
 * side is kept; two notes of one commit become its lines, which the reader joins — and pushed
 * back. The remote's notes land first in `refs/baton/remote/notes/baton`, never straight over this
 * clone's; the push holds a lease on the remote's value as fetched, so notes someone pushed
 * meanwhile are refused rather than overwritten (the next sync merges them). Git runs through
 * Baton's guarded `git` with a time limit, argument arrays only.
 */
import { remoteUrl } from '../merge/index.js';
import { NOTES_REF, whileWritingNotes } from '../provenance/index.js';
import { git } from '../worktrees/index.js';

/** Where the remote's notes are fetched to, apart from this clone's own. */
export const FETCHED_NOTES_REF = 'refs/baton/remote/notes/baton';

const LOCAL_MS = 30_000;
const NETWORK_MS = 120_000;
const BATON_IDENTITY: NodeJS.ProcessEnv = {
  GIT_AUTHOR_NAME: 'Baton',
  GIT_AUTHOR_EMAIL: 'baton@localhost',
  GIT_COMMITTER_NAME: 'Baton',
  GIT_COMMITTER_EMAIL: 'baton@localhost',
};

export interface NotesSync {
  /** The notes commit this clone holds after the merge; null when neither side has notes. */
  local: string | null;
  /** True when the remote's notes were merged into this clone's (or taken, when it had none). */
  merged: boolean;
  /** True when this clone's notes were pushed (the remote lacked some of them). */
  pushed: boolean;
}

async function resolve(root: string, ref: string): Promise<string | null> {
  const found = await git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    okExitCodes: [1],
    timeoutMs: LOCAL_MS,
  });
  return found.exitCode === 0 ? found.stdout.trim() : null;
}

async function isAncestor(root: string, a: string, b: string): Promise<boolean> {
  const run = await git(root, ['merge-base', '--is-ancestor', a, b], {
    okExitCodes: [1],
    timeoutMs: LOCAL_MS,
  });
  return run.exitCode === 0;
}

/**
 * Fetches the remote's provenance notes and merges them into this clone's. Returns the remote's
 * notes commit as fetched (null when it has none).
 */
export async function fetchNotes(
  root: string,
  url: string,
  options: { timeoutMs?: number } = {},
): Promise<{ remote: string | null; merged: boolean }> {
  const listed = await git(root, ['ls-remote', '--', url, NOTES_REF], {
    timeoutMs: options.timeoutMs ?? NETWORK_MS,
  });
  const remote = listed.stdout.split('\n')[0]?.split('\t')[0]?.trim() ?? '';
  if (remote === '') return { remote: null, merged: false };
  await git(root, ['fetch', '--quiet', '--no-tags', '--', url, `+${NOTES_REF}:${FETCHED_NOTES_REF}`], {
    timeoutMs: options.timeoutMs ?? NETWORK_MS,
  });
  const fetched = (await resolve(root, FETCHED_NOTES_REF)) ?? remote;
  // Read and moved behind the landings' writers of the ref (decision 455): a `git notes add`
  // between this merge's read and its write would lose one side's notes.
  const merged = await whileWritingNotes(root, () => mergeFetched(root, fetched));
  return { remote: fetched, merged };
}

/** Merges the fetched notes commit into this clone's notes; true when this clone's notes moved. */
async function mergeFetched(root: string, fetched: string): Promise<boolean> {
  const local = await resolve(root, NOTES_REF);
  if (local === null) {
    // This clone has none: the remote's are taken whole (compare-and-swap on "absent").
    await git(root, ['update-ref', NOTES_REF, fetched, ''], { timeoutMs: LOCAL_MS });
    return true;
  }
  if (local === fetched || (await isAncestor(root, fetched, local))) return false;
  // cat_sort_uniq keeps both sides' notes of a commit both have noted (as lines of one note), so
  // nothing either clone wrote is dropped; it never stops on a conflict.
  await git(
    root,
    ['notes', `--ref=${NOTES_REF}`, 'merge', '--quiet', '--strategy=cat_sort_uniq', FETCHED_NOTES_REF],
    { env: BATON_IDENTITY, timeoutMs: LOCAL_MS },
  );
  return true;
}

/**
 * One round of notes sync with the repository's `remote`: fetch and merge its notes, then push
 * this clone's when the remote lacks some. A refused push (someone pushed notes meanwhile) is left
 * for the next round, which merges theirs first.
 */
export async function syncNotes(
  root: string,
  remote: string,
  options: { timeoutMs?: number } = {},
): Promise<NotesSync> {
  const url = await remoteUrl(root, remote, 'sync', LOCAL_MS);
  const fetched = await fetchNotes(root, url, options);
  const local = await resolve(root, NOTES_REF);
  if (local === null || local === fetched.remote) return { local, merged: fetched.merged, pushed: false };
  const pushed = await git(
    root,
    [
      'push',
      '--quiet',
      '--porcelain',
      `--force-with-lease=${NOTES_REF}:${fetched.remote ?? ''}`,
      '--',
      url,
      `${NOTES_REF}:${NOTES_REF}`,
    ],
    { okExitCodes: [1], timeoutMs: options.timeoutMs ?? NETWORK_MS },
  );
  return { local, merged: fetched.merged, pushed: pushed.exitCode === 0 };
}
