/**
 * Worktrees whose files Baton itself is rewriting for a moment: keep-fresh's rebase (the
 * uncommitted work stashed and reset away, the branch moved, the work laid back), a checkpoint's
 * restore, a queued session moved onto a new base. A reader of the work — the radar's, review's
 * and attempts' snapshots — waits for the rewrite to end, and reads again when one began while it
 * read, so it sees the work before or after, never the worktree between (decision 463, "A
 * snapshot never reads the work a rebase has set aside"). Both sides run in the supervisor, so
 * this process's own record is the whole truth.
 */
import { resolve } from 'node:path';
import { BatonError } from '../shared/errors.js';
import { markPoint } from '../shared/test-points.js';

/** The rewrite under way per worktree, as the promise of its end. */
const underWay = new Map<string, Promise<void>>();
/**
 * How many rewrites have begun per worktree: a read that saw the count move read across one. A
 * number per worktree ever rewritten in this process's life, so never pruned (a reader's count
 * taken before a prune would look moved).
 */
const begun = new Map<string, number>();

/** How many times a read starts again when rewrites keep beginning under it. */
const MAX_READS = 3;

/**
 * How long a read waits for one rewrite to end when its caller sets no limit: longer than any
 * rebase of a session's branch takes, short enough that a hung git never hangs `baton review`.
 */
export const REWRITE_WAIT_MS = 120_000;

/**
 * Runs `work`, a rewrite of `worktree`'s files, with readers kept out until it ends. Rewrites of
 * one worktree take turns (their callers hold the session already; this is the last word).
 */
export async function whileRewriting<T>(worktree: string, work: () => Promise<T>): Promise<T> {
  const key = resolve(worktree);
  for (let current = underWay.get(key); current !== undefined; current = underWay.get(key)) await current;
  let end = (): void => undefined;
  underWay.set(
    key,
    new Promise<void>((done) => {
      end = done;
    }),
  );
  begun.set(key, (begun.get(key) ?? 0) + 1);
  try {
    return await work();
  } finally {
    underWay.delete(key);
    end();
  }
}

/**
 * Runs `read` when no rewrite of `worktree` is under way, and again when one began meanwhile
 * (whether the read answered or failed: a file the rewrite moved under git fails a read). `waitMs`
 * bounds each wait for a rewrite to end (`REWRITE_WAIT_MS` when unset); a wait that runs out, or
 * reads overtaken `MAX_READS` times, throw.
 */
export async function readSettled<T>(
  worktree: string,
  read: () => Promise<T>,
  waitMs = REWRITE_WAIT_MS,
): Promise<T> {
  const key = resolve(worktree);
  for (let attempt = 0; attempt < MAX_READS; attempt++) {
    // Looked at again in the very tick the count is taken: a rewrite queued behind the one waited
    // for may begin between that one's end and this read.
    do await settled(worktree, key, waitMs);
    while (underWay.has(key));
    const before = begun.get(key) ?? 0;
    const overtaken = (): boolean => underWay.has(key) || (begun.get(key) ?? 0) !== before;
    let result: T;
    try {
      result = await read();
    } catch (error) {
      if (overtaken()) continue;
      throw error;
    }
    if (!overtaken()) return result;
  }
  throw new BatonError(
    'conflict',
    `Baton was rewriting the worktree ${worktree} (a rebase or a checkpoint's restore) each time its work was read; try again.`,
  );
}

async function settled(worktree: string, key: string, waitMs: number): Promise<void> {
  for (let current = underWay.get(key); current !== undefined; current = underWay.get(key)) {
    // Race tests learn that a read waits rather than reads.
    markPoint('snapshot.waits-for-rewrite');
    let timer: NodeJS.Timeout | undefined;
    const ranOut = new Promise<'ran out'>((done) => {
      timer = setTimeout(() => done('ran out'), waitMs);
      timer.unref();
    });
    const outcome = await Promise.race([current, ranOut]);
    clearTimeout(timer);
    if (outcome === 'ran out')
      throw new BatonError(
        'conflict',
        `Baton is rewriting the worktree ${worktree} (a rebase or a checkpoint's restore), not done within ${Math.round(waitMs / 1000)} s.`,
      );
  }
}
