import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceEvent } from '../events/workspace.js';
import { ProjectNotFoundError, SessionNotFoundError } from '../shared/errors.js';
import { git as realGit } from '../worktrees/git.js';
import { radarEvents as storedRadarEvents } from '../store/radar-events.js';
import { replay } from './events.js';
import { GitRunner } from './git-runner.js';
import { ConflictRadar } from './radar.js';
import { numbered, RadarFixture } from './testing.js';

let f: RadarFixture;
let radar: ConflictRadar;
let gitArgs: string[][];

beforeEach(() => {
  f = new RadarFixture({ 'a.txt': numbered(40), 'b.txt': numbered(40) });
  gitArgs = [];
  // The real git, counted: what a pass recomputes shows in the calls it makes.
  const git = new GitRunner({
    call: (cwd, args, options) => (gitArgs.push(args), realGit(cwd, args, options)),
  });
  radar = new ConflictRadar({ sessions: f, bus: f.bus, git });
});
afterEach(() => f.cleanup());

const radarEvents = (): WorkspaceEvent[] => f.events.filter((e) => e.type.startsWith('radar.'));

describe('the conflict radar on real repositories', () => {
  it('finds two sessions editing the same hunk hot before anyone merges, and a disjoint third not hot with either', async () => {
    const one = f.session('one');
    const two = f.session('two');
    const three = f.session('three');
    f.write(one, 'a.txt', numbered(40, { 10: 'one was here' }));
    f.write(two, 'a.txt', numbered(40, { 11: 'two was here' }));
    f.write(three, 'a.txt', numbered(40, { 30: 'three was here' }));
    f.write(three, 'c.txt', 'new\n');

    const stats = await radar.pass();
    const { conflicts } = radar.view();
    const level = (x: string, y: string): string | undefined =>
      conflicts.find(
        (c) => [c.a.name, c.b.kind === 'session' ? c.b.name : ''].sort().join() === [x, y].sort().join(),
      )?.level;
    expect(level('one', 'two')).toBe('hot');
    expect(level('one', 'three')).toBe('soft');
    expect(level('two', 'three')).toBe('soft');
    expect(conflicts[0]!.level).toBe('hot');

    const hot = conflicts[0]!;
    const file = hot.files[0]!;
    expect(file).toMatchObject({ path: 'a.txt', level: 'hot', overlapping: true, mergeConflict: null });
    const ranges = [file.a.hunks, file.b.hunks].sort((x, y) => x[0]!.start - y[0]!.start);
    expect(ranges).toEqual([[{ start: 10, count: 1 }], [{ start: 11, count: 1 }]]);
    expect(file.a.diff + file.b.diff).toContain('+one was here');
    expect(file.a.diff + file.b.diff).toContain('+two was here');
    expect(stats).toMatchObject({
      sessions: 3,
      snapshots: 3,
      pairsChecked: 3,
      pairsSkippedDisjoint: 0,
      errors: [],
    });

    expect(radarEvents().map((e) => [e.type, e.type === 'radar.conflict_found' ? e.data.level : ''])).toEqual(
      expect.arrayContaining([
        ['radar.conflict_found', 'hot'],
        ['radar.conflict_found', 'soft'],
        ['radar.conflict_found', 'soft'],
      ]),
    );
    // The user's main checkout is not touched.
    expect(f.git(f.repo, 'status', '--porcelain')).toBe('');
  });

  it('counts uncommitted and committed work alike, and settles disjoint pairs without a git call', async () => {
    const one = f.session('one');
    const two = f.session('two');
    f.write(one, 'a.txt', numbered(40, { 5: 'committed' }));
    f.git(one.worktree, 'commit', '-qam', 'work');
    f.write(two, 'b.txt', numbered(40, { 5: 'elsewhere' }));
    await radar.pass();
    expect(radar.view().conflicts).toEqual([]);
    expect(radar.view().pass).toMatchObject({ pairsChecked: 1, pairsSkippedDisjoint: 1 });
    expect(gitArgs.some((a) => a[0] === 'merge-tree')).toBe(false);

    f.write(two, 'a.txt', numbered(40, { 6: 'uncommitted, next to it' }));
    await radar.pass();
    expect(radar.view().conflicts.map((c) => c.level)).toEqual(['hot']);
    // The worktree's index and status are as the agent left them.
    expect(f.git(two.worktree, 'diff', '--cached', '--name-only')).toBe('');
    expect(f.git(two.worktree, 'diff', '--name-only')).toBe('a.txt\nb.txt');
  });

  it('recomputes only pairs whose trees changed: an unchanged pass makes no diff or merge-tree call', async () => {
    const one = f.session('one');
    const two = f.session('two');
    const three = f.session('three');
    f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
    f.write(two, 'a.txt', numbered(40, { 10: 'two' }));
    f.write(three, 'b.txt', numbered(40, { 1: 'three' }));
    await radar.pass();

    gitArgs.length = 0;
    const again = await radar.pass();
    expect(again).toMatchObject({ pairsChecked: 0, pairsCached: 3 });
    expect(again.cacheHits).toBeGreaterThanOrEqual(3);
    expect(gitArgs.filter((a) => a.includes('diff') || a[0] === 'merge-tree')).toEqual([]);

    // One session edits: only its two pairs are computed again; the third pair is a cache hit.
    f.write(three, 'b.txt', numbered(40, { 2: 'three again' }));
    gitArgs.length = 0;
    const partial = await radar.pass([three.id]);
    expect(partial).toMatchObject({ snapshots: 1, pairsChecked: 2, pairsCached: 1 });
    expect(gitArgs.filter((a) => a[0] === 'merge-tree')).toEqual([]);
    expect(radarEvents().filter((e) => e.type !== 'radar.conflict_found')).toEqual([]);
  });

  it("asks git's merge verdict again only when a file the pair shares changes, or a side deletes one (decision 467)", async () => {
    const one = f.session('one');
    const two = f.session('two');
    const three = f.session('three');
    // Other lines of the same file: only git's merge can tell whether they collide.
    f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
    f.write(one, 'b.txt', numbered(40, { 1: 'one' }));
    f.write(one, 'd.txt', 'new\n');
    f.write(two, 'a.txt', numbered(40, { 30: 'two' }));
    f.write(three, 'c.txt', 'three\n');
    await radar.pass();
    const merges = (): number => gitArgs.filter((args) => args[0] === 'merge-tree').length;
    const level = (): string | undefined =>
      radar.view({ session: 'two' }).conflicts.find((c) => c.a.name === 'one' || c.b.kind === 'session')
        ?.level;
    expect(merges()).toBe(1);
    expect(level()).toBe('soft');

    // A pass that leaves the pair alone, then edits of files only one of them changes (one it
    // added among them): the pair is compared again, with the verdict git gave before.
    f.write(three, 'c.txt', 'three again\n');
    await radar.pass([three.id]);
    f.write(one, 'b.txt', numbered(40, { 2: 'one again' }));
    f.write(one, 'd.txt', 'new, edited\n');
    gitArgs.length = 0;
    const edited = await radar.pass([one.id]);
    expect(edited).toMatchObject({ snapshots: 1, pairsChecked: 2 });
    expect(merges()).toBe(0);
    expect(level()).toBe('soft');

    // The shared file changes: git is asked again.
    f.write(two, 'a.txt', numbered(40, { 25: 'two moved' }));
    gitArgs.length = 0;
    await radar.pass([two.id]);
    expect(merges()).toBe(1);
    expect(level()).toBe('soft');

    // A deleted file could be half of a rename git finds: git is asked each time the pair changes
    // (two deletes the file one edits: hot on its own, a.txt still asks git).
    rmSync(join(two.worktree, 'b.txt'));
    await radar.pass([two.id]);
    f.write(one, 'd.txt', 'new, edited again\n');
    gitArgs.length = 0;
    await radar.pass([one.id]);
    expect(merges()).toBe(1);
    expect(level()).toBe('hot');
  });

  it("lists the repository's settings once in a pass for all its diffs, and once more for each merge-tree (decision 467)", async () => {
    // A stand-in for git first on the PATH: it writes down where each call ran and what it was.
    const bin = mkdtempSync(join(tmpdir(), 'baton-git-calls-'));
    const calls = join(bin, 'calls');
    const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$PWD $*" >> '${calls}'\nexec '${git}' "$@"\n`, {
      mode: 0o755,
    });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    try {
      const one = f.session('one');
      const two = f.session('two');
      const three = f.session('three');
      f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
      f.write(two, 'a.txt', numbered(40, { 30: 'two' }));
      f.write(three, 'a.txt', numbered(40, { 20: 'three' }));
      await radar.pass();
      const inRoot = readFileSync(calls, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith(`${realpathSync(f.repo)} `) || line.startsWith(`${f.repo} `));
      const made = (sub: string): number => inRoot.filter((line) => line.includes(` ${sub} `)).length;
      expect(made('diff')).toBe(3);
      expect(made('merge-tree')).toBe(3);
      // A merge-tree may run a merge driver: it lists the settings itself, just before it runs.
      expect(made('config --list')).toBe(1 + 3);
    } finally {
      process.env.PATH = path;
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('makes a session hot against its base when the base branch moves under it, and not for a detached base', async () => {
    const one = f.session('one');
    const detached = f.session('detached', f.git(f.repo, 'rev-parse', 'HEAD'));
    f.write(one, 'a.txt', numbered(40, { 20: 'session' }));
    f.write(detached, 'a.txt', numbered(40, { 20: 'detached' }));
    f.write(f.store.get(one.id)!, 'b.txt', numbered(40, { 1: 'b' }));
    // Someone lands a change to the same lines on main.
    f.write({ ...one, worktree: f.repo }, 'a.txt', numbered(40, { 21: 'landed on main' }));
    f.git(f.repo, 'commit', '-qam', 'landed');
    await radar.pass();
    const base = radar.view().conflicts.filter((c) => c.b.kind === 'base');
    expect(base.map((c) => [c.a.name, c.level, c.b.kind === 'base' ? c.b.ref : ''])).toEqual([
      ['one', 'hot', 'main'],
    ]);
    expect(base[0]!.files.map((x) => x.path)).toEqual(['a.txt']);
    expect(base[0]!.files[0]!.b.diff).toContain('+landed on main');
  });

  it('takes the true merge base when one session has merged the other: what they share is not a collision', async () => {
    const one = f.session('one');
    const two = f.session('two');
    f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
    f.git(one.worktree, 'commit', '-qam', 'one');
    f.write(two, 'b.txt', numbered(40, { 1: 'two' }));
    f.git(two.worktree, 'commit', '-qam', 'two');
    f.git(two.worktree, 'merge', '-q', '--no-edit', 'baton/one');
    gitArgs.length = 0;
    await radar.pass();
    expect(radar.view().conflicts).toEqual([]);
    expect(gitArgs.filter((a) => a[0] === 'merge-base')).toHaveLength(1);

    // Straight lines of their own commits on one base need no merge-base call (one and three);
    // the branch with a merge in it does (two and three).
    const three = f.session('three');
    f.write(three, 'a.txt', numbered(40, { 11: 'three' }));
    f.git(three.worktree, 'commit', '-qam', 'three');
    gitArgs.length = 0;
    await radar.pass([three.id]);
    const twoHead = f.git(two.worktree, 'rev-parse', 'HEAD');
    expect(gitArgs.filter((a) => a[0] === 'merge-base').map((a) => a.includes(twoHead))).toEqual([true]);
    expect(
      radar
        .view()
        .conflicts.map((c) => [[c.a.name, c.b.kind === 'session' ? c.b.name : ''].sort().join(), c.level])
        .sort(),
    ).toEqual([
      ['one,three', 'hot'],
      ['three,two', 'hot'],
    ]);
  });

  it('does not count against the base work that has already landed on it', async () => {
    const one = f.session('one');
    f.write(one, 'a.txt', numbered(40, { 20: 'session' }));
    f.git(one.worktree, 'commit', '-qam', 'work');
    await radar.pass();
    expect(radar.view().conflicts).toEqual([]);
    // The session's branch is merged into main (and main moves on elsewhere): nothing collides.
    f.git(f.repo, 'merge', '-q', '--no-ff', '-m', 'land one', 'baton/one');
    f.write({ ...one, worktree: f.repo }, 'b.txt', numbered(40, { 3: 'later on main' }));
    f.git(f.repo, 'commit', '-qam', 'later');
    await radar.pass();
    expect(radar.view().conflicts).toEqual([]);
    // Uncommitted work on the same lines still counts.
    f.write(one, 'a.txt', numbered(40, { 20: 'session', 21: 'more' }));
    f.write({ ...one, worktree: f.repo }, 'a.txt', numbered(40, { 20: 'session', 22: 'main' }));
    f.git(f.repo, 'commit', '-qam', 'main edits next to it');
    await radar.pass();
    expect(radar.view().conflicts.map((c) => [c.b.kind, c.level])).toEqual([['base', 'hot']]);
  });

  it("clears a removed session's pairs with an event", async () => {
    const one = f.session('one');
    const two = f.session('two');
    f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
    f.write(two, 'a.txt', numbered(40, { 10: 'two' }));
    await radar.pass();
    expect(radar.view().conflicts).toHaveLength(1);
    f.remove(two);
    await radar.pass([]);
    expect(radar.view().conflicts).toEqual([]);
    const cleared = radarEvents().filter((e) => e.type === 'radar.conflict_cleared');
    expect(cleared.map((e) => e.data)).toEqual([
      expect.objectContaining({ reason: 'removed', previous: 'hot' }),
    ]);
  });

  it('after a restart announces only what changed while it was away, from its own stored events', async () => {
    const one = f.session('one');
    const two = f.session('two');
    const three = f.session('three');
    f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
    f.write(two, 'a.txt', numbered(40, { 10: 'two' }));
    f.write(three, 'a.txt', numbered(40, { 30: 'three' }));
    await radar.pass();
    expect(radarEvents().map((e) => e.type)).toEqual([
      'radar.conflict_found',
      'radar.conflict_found',
      'radar.conflict_found',
    ]);

    // While no supervisor runs, three goes elsewhere.
    f.write(three, 'a.txt', numbered(40));
    f.write(three, 'b.txt', numbered(40, { 1: 'three' }));
    const restarted = new ConflictRadar({ sessions: f, bus: f.bus, told: replay(storedRadarEvents(f.db)) });
    const before = f.events.length;
    await restarted.pass();
    expect(
      f.events.slice(before).map((e) => [e.type, e.type === 'radar.conflict_cleared' ? e.data.reason : '']),
    ).toEqual([
      ['radar.conflict_cleared', 'resolved'],
      ['radar.conflict_cleared', 'resolved'],
    ]);
    expect(restarted.view().conflicts.map((c) => c.level)).toEqual(['hot']);
  });

  it('names an unknown session or project clearly', async () => {
    f.session('one');
    await radar.pass();
    expect(() => radar.view({ session: 'nope' })).toThrow(SessionNotFoundError);
    expect(() => radar.view({ project: 'nope' })).toThrow(ProjectNotFoundError);
    expect(() => radar.view({ project: 'nope' })).toThrow(/projects with live sessions: repo/);
    expect(radar.view({ project: 'repo', session: 'one' }).conflicts).toEqual([]);
  });

  it('does not let a slow git call hang the pass: the pair is decided by its hunks, with a note', async () => {
    // A merge-tree that never answers (git waiting on input that never comes stands in for a
    // branch thousands of commits behind); the other calls are the real ones.
    const slow = new GitRunner({
      timeoutMs: 200,
      call: (cwd, args, options) =>
        args[0] === 'merge-tree'
          ? realGit(cwd, ['cat-file', '--batch'], options)
          : realGit(cwd, args, { ...options, timeoutMs: undefined }),
    });
    radar = new ConflictRadar({ sessions: f, bus: f.bus, git: slow });
    const one = f.session('one');
    const two = f.session('two');
    // Other lines of the same file: only git's merge can tell whether they collide.
    f.write(one, 'a.txt', numbered(40, { 10: 'one' }));
    f.write(two, 'a.txt', numbered(40, { 30: 'two' }));
    const stats = await radar.pass();
    const [conflict] = radar.view().conflicts;
    expect(conflict).toMatchObject({ level: 'soft', files: [{ path: 'a.txt', mergeConflict: null }] });
    expect(conflict!.note).toMatch(/timed out after 200 ms/);
    expect(stats.timedOut).toBe(1);
  });
});
