/**
 * A snapshot never reads the work a rebase has set aside (decision 463): the radar's fresh pass,
 * review and attempts read a session's work while keep-fresh may be rebasing it, and between the
 * rebase's stash and its lay-back the worktree shows nothing of it. The rebase is held at its
 * `rebase.set-aside` step point; the snapshot asked for then must wait and see the work.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestPoints } from '../../test/support/points.js';
import { rebaseWorktree } from './rebase.js';
import { git, lines, repositoryWithWorktree } from './testing.js';
import { readSettled, whileRewriting } from './rewrites.js';
import { snapshotWork } from './snapshot.js';

let root: string;
let repo: string;
let tree: string;
let points: TestPoints;
let pointsBefore: string | undefined;

/** Waits until `name` is reached or `other` settles, whichever is first (an event, not a window). */
async function reachedOr(name: string, other: Promise<unknown>): Promise<'reached' | 'settled'> {
  let settled = false;
  void other.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (;;) {
    if (points.reached(name)) return 'reached';
    if (settled) return 'settled';
    await sleep(5);
  }
}

beforeEach(() => {
  ({ root, repo, tree } = repositoryWithWorktree(
    'baton-rewrites-test-',
    { 'a.txt': lines() },
    'base',
    'work',
  ));
  points = new TestPoints(join(root, 'points'));
  pointsBefore = process.env.BATON_TEST_POINTS;
  process.env.BATON_TEST_POINTS = points.dir;
});

afterEach(() => {
  if (pointsBefore === undefined) delete process.env.BATON_TEST_POINTS;
  else process.env.BATON_TEST_POINTS = pointsBefore;
  rmSync(root, { recursive: true, force: true });
});

describe('a snapshot beside a rebase', () => {
  it.each([
    ['lands on a base that moved elsewhere', { 2: 'base moved' }, 'rebased'],
    ['conflicts and is put back', { 8: 'base moved' }, 'conflict'],
  ] as const)(
    'taken while the work is set aside, waits and sees the work (a rebase that %s)',
    async (_, baseChange, outcome) => {
      writeFileSync(join(tree, 'a.txt'), lines({ 8: 'uncommitted' }));
      writeFileSync(join(repo, 'a.txt'), lines(baseChange));
      git(repo, 'commit', '-qam', 'base moves');
      const workBefore = (await snapshotWork(tree)).tree;

      points.hold('rebase.set-aside');
      const rebase = rebaseWorktree(tree, git(repo, 'rev-parse', 'main'));
      expect(await reachedOr('rebase.set-aside', rebase)).toBe('reached');
      // The work is out of the worktree now: git itself sees a clean one.
      expect(git(tree, 'status', '--porcelain')).toBe('');

      const snapshot = snapshotWork(tree);
      const first = await reachedOr('snapshot.waits-for-rewrite', snapshot);
      points.release('rebase.set-aside');
      const [result, taken] = await Promise.all([rebase, snapshot]);

      expect(first).toBe('reached');
      expect(result.kind).toBe(outcome);
      const content = git(tree, 'show', `${taken.tree}:a.txt`);
      expect(content).toContain('uncommitted');
      if (outcome === 'conflict') expect(taken.tree).toBe(workBefore);
      else expect(content).toContain('base moved');
      expect(taken.head).toBe(git(tree, 'rev-parse', 'HEAD'));
    },
  );

  it('a read that a rewrite began under is read again after it', async () => {
    const reads: string[] = [];
    let state = 'before';
    let rewritten = (): void => undefined;
    let readStarted = (): void => undefined;
    const started = new Promise<void>((done) => (readStarted = done));
    const reading = readSettled(tree, async () => {
      reads.push(state);
      readStarted();
      // The first read is overtaken: a rewrite begins and ends before it answers.
      if (reads.length === 1)
        await whileRewriting(tree, async () => {
          state = 'set aside';
          await new Promise<void>((done) => (rewritten = done));
          state = 'after';
        });
      return state;
    });
    await started;
    rewritten();
    expect(await reading).toBe('after');
    expect(reads).toEqual(['before', 'after']);
  });

  it('a wait bounded by the caller ends with a clear error, and the rewrite is not disturbed', async () => {
    let finish = (): void => undefined;
    const rewrite = whileRewriting(tree, () => new Promise<void>((done) => (finish = done)));
    await expect(readSettled(tree, async () => 'read', 1)).rejects.toThrow(
      /rewriting the worktree .* not done within/,
    );
    finish();
    await rewrite;
    expect(await readSettled(tree, async () => 'read', 1)).toBe('read');
    expect(existsSync(tree)).toBe(true);
  });

  it('a read that fails because a rewrite moved files under it is read again', async () => {
    let calls = 0;
    let endRewrite = (): void => undefined;
    let rewriting: Promise<void> | undefined;
    const reading = readSettled(tree, async () => {
      calls++;
      if (calls === 1) {
        rewriting = whileRewriting(tree, () => new Promise<void>((done) => (endRewrite = done)));
        throw new Error('git add: a file went away');
      }
      return 'whole';
    });
    for (let turn = 0; turn < 10 && rewriting === undefined; turn++)
      await new Promise((done) => setImmediate(done));
    endRewrite();
    await rewriting;
    expect(await reading).toBe('whole');
    expect(calls).toBe(2);
    // A failure no rewrite explains is the caller's to see.
    await expect(
      readSettled(tree, async () => {
        throw new Error('git is broken');
      }),
    ).rejects.toThrow('git is broken');
  });

  it('rewrites of one worktree take turns', async () => {
    const order: string[] = [];
    let firstDone = (): void => undefined;
    const first = whileRewriting(tree, async () => {
      order.push('first begins');
      await new Promise<void>((done) => (firstDone = done));
      order.push('first ends');
    });
    const second = whileRewriting(tree, async () => {
      order.push('second begins');
    });
    await Promise.resolve();
    firstDone();
    await Promise.all([first, second]);
    expect(order).toEqual(['first begins', 'first ends', 'second begins']);
  });
});
