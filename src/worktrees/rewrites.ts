/**
 * Worktrees whose work is set aside for a moment by Baton's own rewrite of them (keep-fresh's
 * rebase: the uncommitted work stashed and reset away, the branch moved, the work laid back).
 * A reader of the work — the radar's, review's and attempts' snapshots — waits for the rewrite to
 * end, and reads again when one began while it read, so it sees the work before or after, never
 * the empty worktree between (decision 463, "A snapshot never reads work a rebase has set aside").
 * Both sides run in the supervisor, so this process's own record is the whole truth.
 */
import { resolve } from 'node:path';
import { BatonError } from '../shared/errors.js';
import { markPoint } from '../shared/test-points.js';

/** The rewrite under way per worktree, as the promise of its end. */
const underWay = new Map<string, Promise<void>>();
/** How many rewrites have begun per worktree: a read that saw the count move read across one. */
const begun = new Map<string, number>();

/** How many times a read starts again when rewrites keep beginning under it. */
const MAX_READS = 3;

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
 * Runs `read` when no rewrite of `worktree` is under way, and again when one began meanwhile.
 * `waitMs` bounds each wait for a rewrite to end (unset: as long as it takes; each of a rebase's git
 * calls has its own limit); a wait that runs out, or reads overtaken `MAX_READS` times, throw.
 */
export async function readSettled<T>(worktree: string, read: () => Promise<T>, waitMs?: number): Promise<T> {
  const key = resolve(worktree);
  for (let attempt = 0; attempt < MAX_READS; attempt++) {
    await settled(worktree, key, waitMs);
    const before = begun.get(key) ?? 0;
    const result = await read();
    if (!underWay.has(key) && (begun.get(key) ?? 0) === before) return result;
  }
  throw new BatonError('conflict', `The worktree ${worktree} is being rebased; its work could not be read.`);
}

async function settled(worktree: string, key: string, waitMs: number | undefined): Promise<void> {
  for (let current = underWay.get(key); current !== undefined; current = underWay.get(key)) {
    // Race tests learn that a read waits rather than reads.
    markPoint('snapshot.waits-for-rewrite');
    if (waitMs === undefined) {
      await current;
      continue;
    }
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
        `The worktree ${worktree} is being rebased; it was not done within ${waitMs} ms.`,
      );
  }
}
