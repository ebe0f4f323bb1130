/**
 * The cached merge verdict (decision 467) against a fresh `git merge-tree --write-tree` of the
 * same two worktrees, after sequences of edits, on real repositories: what the key must hold of
 * the sides (every path both change, with its mode) and of the repository (its attributes and
 * settings), and that a merge-tree is never run with a settings listing older than itself.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionWithProject } from '../store/sessions.js';
import { git as realGit } from '../worktrees/git.js';
import { GitRunner, type GitCall } from './git-runner.js';
import { ConflictRadar } from './radar.js';
import { numbered, RadarFixture } from './testing.js';

let f: RadarFixture;
let radar: ConflictRadar;
let gitArgs: string[][];

const radarWith = (call: GitCall): ConflictRadar =>
  new ConflictRadar({ sessions: f, bus: f.bus, git: new GitRunner({ call }) });

beforeEach(() => {
  f = new RadarFixture({ 'a.txt': numbered(40), 'b.txt': numbered(40) });
  gitArgs = [];
  radar = radarWith((cwd, args, options) => (gitArgs.push(args), realGit(cwd, args, options)));
});
afterEach(() => f.cleanup());

/** The worktree's work (tracked and untracked) as a commit on its HEAD, without touching its index. */
function workCommit(s: SessionWithProject): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(f.dir, `index-${s.name}`) };
  const run = (...args: string[]): string =>
    execFileSync('git', args, { cwd: s.worktree, env, encoding: 'utf8' }).trim();
  run('read-tree', 'HEAD');
  run('add', '--all');
  return run('commit-tree', run('write-tree'), '-p', 'HEAD', '-m', 'fresh');
}

/** merge-ort names the side it moved aside by its commit, which differs between two snapshots of the same work. */
const sideless = (path: string): string => path.replace(/~[0-9a-f]{40}$/, '~<side>');

/** What a fresh `git merge-tree --write-tree` of the two worktrees says cannot merge. */
function freshConflicts(x: SessionWithProject, y: SessionWithProject): string[] {
  try {
    execFileSync(
      'git',
      ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', workCommit(x), workCommit(y)],
      { cwd: f.repo, encoding: 'utf8' },
    );
    return [];
  } catch (error) {
    const out = String((error as { stdout?: string }).stdout ?? '');
    return out
      .split('\0')
      .slice(1)
      .filter((p) => p !== '')
      .map(sideless)
      .sort();
  }
}

/** What the radar says git cannot merge for the pair of sessions. */
function radarConflicts(): string[] {
  const pair = radar.view().conflicts.find((c) => c.b.kind === 'session');
  return (pair?.files ?? [])
    .filter((file) => file.mergeConflict === true)
    .map((file) => sideless(file.path))
    .sort();
}

const merges = (): number => gitArgs.filter((args) => args[0] === 'merge-tree').length;

/** Two sessions editing a.txt on lines far apart: the hunks leave the level open, so git is asked. */
function twoSessions(): [SessionWithProject, SessionWithProject] {
  const one = f.session('one');
  const two = f.session('two');
  f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
  f.write(two, 'a.txt', numbered(40, { 30: 'two' }));
  return [one, two];
}

describe('the cached merge verdict holds the mode of every path both sides change (decision 467)', () => {
  it('asks git again when one side makes executable a file both add with the same content', async () => {
    const [one, two] = twoSessions();
    f.write(one, 'x.sh', 'same\n');
    f.write(two, 'x.sh', 'same\n');
    await radar.pass();
    expect(freshConflicts(one, two)).toEqual([]);
    expect(radarConflicts()).toEqual([]);

    // The same blob on both sides: no collision of content, but git's merge conflicts on the mode.
    chmodSync(join(one.worktree, 'x.sh'), 0o755);
    gitArgs.length = 0;
    await radar.pass([one.id]);
    const fresh = freshConflicts(one, two);
    expect(fresh).toEqual(['x.sh']);
    expect({ radar: radarConflicts(), mergeTrees: merges() }).toEqual({ radar: fresh, mergeTrees: 1 });
  });

  it('clears the conflict when the other side matches the mode of a file both add', async () => {
    const [one, two] = twoSessions();
    writeFileSync(join(one.worktree, 'x.sh'), 'same\n', { mode: 0o755 });
    f.write(two, 'x.sh', 'same\n');
    await radar.pass();
    expect(freshConflicts(one, two)).toEqual(['x.sh']);
    expect(radarConflicts()).toEqual(['x.sh']);

    chmodSync(join(two.worktree, 'x.sh'), 0o755);
    await radar.pass([two.id]);
    expect(freshConflicts(one, two)).toEqual([]);
    expect(radarConflicts()).toEqual([]);
  });

  it('clears the conflict when the other side turns its file into the same symlink', async () => {
    const [one, two] = twoSessions();
    symlinkSync('target', join(one.worktree, 'link'));
    f.write(two, 'link', 'target');
    await radar.pass();
    const first = freshConflicts(one, two);
    expect(first).toContain('link');
    expect(radarConflicts()).toEqual(first);

    rmSync(join(two.worktree, 'link'));
    symlinkSync('target', join(two.worktree, 'link'));
    await radar.pass([two.id]);
    expect(freshConflicts(one, two)).toEqual([]);
    expect(radarConflicts()).toEqual([]);
  });
});

describe("the cached merge verdict holds the repository's own attributes and settings (decision 467)", () => {
  it('asks git again after info/attributes changes, though a side edits only a file the other does not', async () => {
    const [one, two] = twoSessions();
    await radar.pass();
    expect(radarConflicts()).toEqual([]);

    mkdirSync(join(f.repo, '.git', 'info'), { recursive: true });
    writeFileSync(join(f.repo, '.git', 'info', 'attributes'), 'a.txt -merge\n');
    f.write(one, 'b.txt', numbered(40, { 1: 'one, elsewhere' }));
    await radar.pass([one.id]);
    const fresh = freshConflicts(one, two);
    expect(fresh).toEqual(['a.txt']);
    expect(radarConflicts()).toEqual(fresh);
  });

  it("asks git again after the main checkout's .gitattributes changes (git reads the working file)", async () => {
    const [one, two] = twoSessions();
    await radar.pass();
    expect(radarConflicts()).toEqual([]);

    writeFileSync(join(f.repo, '.gitattributes'), 'a.txt -merge\n');
    f.write(one, 'b.txt', numbered(40, { 1: 'one, elsewhere' }));
    await radar.pass([one.id]);
    const fresh = freshConflicts(one, two);
    expect(fresh).toEqual(['a.txt']);
    expect(radarConflicts()).toEqual(fresh);
  });

  it('asks git again after a merge setting changes (merge.renormalize)', async () => {
    const [one, two] = twoSessions();
    await radar.pass();
    f.git(f.repo, 'config', 'merge.renormalize', 'true');
    f.write(one, 'b.txt', numbered(40, { 1: 'one, elsewhere' }));
    gitArgs.length = 0;
    await radar.pass([one.id]);
    expect(merges()).toBe(1);
    expect(radarConflicts()).toEqual(freshConflicts(one, two));
  });

  it('reuses the verdict while nothing git reads changed', async () => {
    const [one] = twoSessions();
    mkdirSync(join(f.repo, '.git', 'info'), { recursive: true });
    writeFileSync(join(f.repo, '.git', 'info', 'attributes'), 'b.txt -merge\n');
    await radar.pass();
    f.write(one, 'b.txt', numbered(40, { 1: 'one, elsewhere' }));
    gitArgs.length = 0;
    await radar.pass([one.id]);
    expect(merges()).toBe(0);
  });
});

describe('a merge-tree lists the settings itself (decision 467, amends 450)', () => {
  it("does not run a merge driver added after the pass's listing, before its merge-tree", async () => {
    const marker = join(f.dir, 'driver-ran');
    // Attributes alone run nothing: a driver the config does not define is git's text merge.
    mkdirSync(join(f.repo, '.git', 'info'), { recursive: true });
    writeFileSync(join(f.repo, '.git', 'info', 'attributes'), 'a.txt merge=evil\n');
    twoSessions();
    let added = false;
    radar = radarWith((cwd, args, options) => {
      // The agent's write, between the pass's listing (beside the branch tips) and its merge-tree.
      if (args[0] === 'merge-tree' && !added) {
        added = true;
        f.git(f.repo, 'config', 'merge.evil.driver', `touch '${marker}'`);
      }
      return realGit(cwd, args, options);
    });
    await radar.pass();
    expect(added).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('the cached merge verdict equals a fresh merge-tree after every step', () => {
  type Step = (one: SessionWithProject, two: SessionWithProject) => void;
  const agree = async (steps: Step[]): Promise<void> => {
    const [one, two] = twoSessions();
    for (const [i, step] of steps.entries()) {
      step(one, two);
      await radar.pass();
      expect({ step: i, radar: radarConflicts() }).toEqual({ step: i, radar: freshConflicts(one, two) });
    }
  };
  const commitAll = (s: SessionWithProject, message: string): void => {
    f.git(s.worktree, 'add', '--all');
    f.git(s.worktree, '-c', 'user.email=t@e', '-c', 'user.name=T', 'commit', '-qm', message);
  };

  it("a file meets the other's folder (x against x/y), then x is edited", () =>
    agree([
      (one, two) => {
        f.write(one, 'x', 'file\n');
        mkdirSync(join(two.worktree, 'x'));
        f.write(two, 'x/y', 'y\n');
      },
      (one) => f.write(one, 'x', 'file, edited\n'),
      (_, two) => f.write(two, 'x/y', 'y, edited\n'),
    ]));

  it('a file only one side changes becomes a symlink, then executable, then back', () =>
    agree([
      (one) => {
        rmSync(join(one.worktree, 'b.txt'));
        symlinkSync('a.txt', join(one.worktree, 'b.txt'));
      },
      (one) => {
        rmSync(join(one.worktree, 'b.txt'));
        f.write(one, 'b.txt', numbered(40));
        chmodSync(join(one.worktree, 'b.txt'), 0o755);
      },
      (one) => chmodSync(join(one.worktree, 'b.txt'), 0o644),
    ]));

  it('a rename on one side (a delete and an add) while the other edits the renamed file, then the new name is edited', () =>
    agree([
      (_, two) => f.write(two, 'b.txt', numbered(40, { 5: 'two' })),
      (one) => {
        rmSync(join(one.worktree, 'b.txt'));
        f.write(one, 'c.txt', numbered(40, { 5: 'one' }));
      },
      (one) => f.write(one, 'c.txt', numbered(40, { 6: 'one' })),
    ]));

  it('a head moves by a commit whose tree is the same, and a side commits its work', () =>
    agree([
      (one) =>
        f.git(
          one.worktree,
          '-c',
          'user.email=t@e',
          '-c',
          'user.name=T',
          'commit',
          '-q',
          '--allow-empty',
          '-m',
          'empty',
        ),
      (one) => commitAll(one, 'work'),
      (_, two) => f.write(two, 'a.txt', numbered(40, { 30: 'two', 35: 'two again' })),
    ]));

  it("a side's own .gitattributes (-merge, binary, merge=union) changes", () =>
    agree([
      (one) => f.write(one, '.gitattributes', 'a.txt -merge\n'),
      (one) => f.write(one, '.gitattributes', 'a.txt binary\n'),
      (one, two) => {
        f.write(two, '.gitattributes', 'a.txt merge=union\n');
        f.write(one, '.gitattributes', '');
      },
    ]));

  it('both sides add the same name with different content, then one matches the other', () =>
    agree([
      (one, two) => {
        f.write(one, 'n.txt', 'one\n');
        f.write(two, 'n.txt', 'two\n');
      },
      (one) => f.write(one, 'n.txt', 'two\n'),
      (one) => f.write(one, 'n.txt', 'one again\n'),
    ]));
});
