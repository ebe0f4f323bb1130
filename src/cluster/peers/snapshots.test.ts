/**
 * Other machines' sessions in the radar, on real repositories: this machine's checkout has a bare
 * `origin`; another machine's clone of it pushes session branches and uncommitted-work snapshots
 * there as sync does, and the radar reads them through a real fetch.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Conflict } from '../../api/conflicts.js';
import { newId } from '../../shared/ids.js';
import type { SessionWithProject } from '../../store/sessions.js';
import { fetchPushedWork, pushedWork } from '../../sync/fetch.js';
import { ElsewhereSnapshots, type ElsewhereMember, type ElsewhereSource } from './snapshots.js';
import { ConflictRadar } from '../../radar/radar.js';
import { AgentTeller } from '../../radar/tell.js';
import { numbered, RadarFixture } from '../../radar/testing.js';

let f: RadarFixture;
let other: string;
let members: ElsewhereMember[];
let snapshots: ElsewhereSnapshots;
let radar: ConflictRadar;
let down: boolean;

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

beforeEach(() => {
  f = new RadarFixture({ 'a.txt': numbered(40), 'b.txt': numbered(40) });
  const bare = join(f.dir, 'remote.git');
  git(f.dir, 'init', '--quiet', '--bare', bare);
  f.git(f.repo, 'remote', 'add', 'origin', bare);
  f.git(f.repo, 'push', '--quiet', 'origin', 'main');
  other = join(f.dir, 'other-machine');
  git(f.dir, 'clone', '--quiet', '--branch', 'main', bare, other);
  git(other, 'config', 'user.email', 'o@example.com');
  git(other, 'config', 'user.name', 'O');
  members = [];
  down = false;
  const source: ElsewhereSource = {
    members: () => Promise.resolve(members),
    work: async (wanted) => {
      // The remote unreachable: every member's repository unread, as ElsewhereWork reports it.
      if (down) return Object.assign(new Map(), { unread: new Set(wanted.map((m) => m.id)) });
      await fetchPushedWork(f.repo);
      const work = new Map<string, NonNullable<Awaited<ReturnType<typeof pushedWork>>>>();
      for (const m of wanted) {
        const pushed = await pushedWork(f.repo, { id: m.id, name: m.name });
        if (pushed !== undefined) work.set(m.id, pushed);
      }
      return work;
    },
  };
  snapshots = new ElsewhereSnapshots(source);
  radar = new ConflictRadar({ sessions: f, bus: f.bus, elsewhere: snapshots });
});
afterEach(() => f.cleanup());

/** Another machine's session: its branch pushed with `committed` as a.txt, and `uncommitted` as its snapshot when given. */
function elsewhere(machine: string, name: string, committed: string, uncommitted?: string): ElsewhereMember {
  const template = f.list()[0] as SessionWithProject;
  const id = newId();
  pushAs(id, name, committed, uncommitted);
  const session = {
    ...template,
    id,
    name,
    branch: `baton/${name}`,
    base_ref: 'main',
    base_commit: f.git(f.repo, 'rev-parse', 'main'),
    worktree: join(f.dir, 'elsewhere', name),
  };
  const member = { session, machine, version: '1' };
  members.push(member);
  return member;
}

function pushAs(id: string, name: string, committed: string, uncommitted?: string): void {
  git(other, 'checkout', '--quiet', '-B', `baton/${name}`, 'origin/main');
  writeFileSync(join(other, 'a.txt'), committed);
  git(other, 'commit', '-qam', `work of ${name}`);
  git(other, 'push', '--quiet', '--force', 'origin', `HEAD:refs/heads/baton/${name}`);
  if (uncommitted === undefined) return;
  writeFileSync(join(other, 'a.txt'), uncommitted);
  git(other, 'add', '.');
  const snapshot = git(
    other,
    'commit-tree',
    git(other, 'write-tree'),
    '-p',
    'HEAD',
    '-m',
    'baton: uncommitted work',
  );
  git(other, 'reset', '--quiet', '--hard');
  git(other, 'push', '--quiet', '--force', 'origin', `${snapshot}:refs/baton/snapshots/${id}`);
}

const pairOf = (conflicts: Conflict[], x: string, y: string): Conflict | undefined =>
  conflicts.find(
    (c) => c.b.kind === 'session' && [c.a.name, c.b.name].sort().join() === [x, y].sort().join(),
  );

describe("the radar with other machines' sessions", () => {
  it('finds a local session and a remote one editing the same lines hot, naming its machine; two remote ones and a remote one with its base are not compared', async () => {
    const mine = f.session('mine');
    f.write(mine, 'a.txt', numbered(40, { 10: 'mine was here' }));
    // Beta's work on line 11 is uncommitted: only its pushed snapshot has it.
    elsewhere(
      'beta',
      'theirs',
      numbered(40, { 30: 'committed on beta' }),
      numbered(40, { 11: 'theirs was here', 30: 'committed on beta' }),
    );
    elsewhere('gamma', 'yonder', numbered(40, { 12: 'yonder was here' }));
    // The base moves under everyone on the same lines.
    writeFileSync(join(f.repo, 'a.txt'), numbered(40, { 11: 'main moved', 12: 'main moved' }));
    f.git(f.repo, 'commit', '-qam', 'main moves');

    const stats = await radar.pass();
    const { conflicts } = radar.view();
    const hot = pairOf(conflicts, 'mine', 'theirs');
    expect(hot?.level).toBe('hot');
    const theirs = hot?.a.name === 'theirs' ? hot.a : hot?.b;
    expect(theirs).toMatchObject({ kind: 'session', name: 'theirs', machine: 'beta' });
    const mySide = hot?.a.name === 'mine' ? hot.a : hot?.b;
    expect(mySide).not.toHaveProperty('machine');
    expect(hot?.files.map((file) => file.path)).toEqual(['a.txt']);
    expect(JSON.stringify(hot?.files)).toContain('+theirs was here');
    // Lines 10 and 12: git's merge of mine and yonder's pushed commit decides, and merges them.
    expect(pairOf(conflicts, 'mine', 'yonder')).toMatchObject({
      level: 'soft',
      files: [{ path: 'a.txt', mergeConflict: false }],
    });
    // Lines 11 and 12 would be hot: gamma's and beta's radars compare them, not this one.
    expect(pairOf(conflicts, 'theirs', 'yonder')).toBeUndefined();
    expect(conflicts.filter((c) => c.b.kind === 'base').map((c) => c.a.name)).toEqual(['mine']);
    expect(stats).toMatchObject({ sessions: 3, snapshots: 1, elsewhere: { sessions: 2, fetched: true } });
    // Both local and remote sides of the events the bus carries.
    expect(f.events.filter((e) => e.type === 'radar.conflict_found')).toHaveLength(3);
  });

  it('asks again for a member whose repository could not be fetched, though it did not change', async () => {
    elsewhere('beta', 'theirs', numbered(40, { 10: 'theirs' }));
    down = true;
    expect((await snapshots.read()).tracked).toEqual([]);
    down = false;
    const again = await snapshots.read();
    expect(again.fetched).toBe(true);
    expect(again.tracked.map((t) => t.session.name)).toEqual(['theirs']);
    expect(snapshots.fetches).toBe(2);
  });

  it('fetches again only when a remote member changed, and then sees its new work', async () => {
    const mine = f.session('mine');
    f.write(mine, 'a.txt', numbered(40, { 10: 'mine was here' }));
    const theirs = elsewhere('beta', 'theirs', numbered(40, { 30: 'far away' }));

    expect((await radar.pass()).elsewhere).toMatchObject({ sessions: 1, fetched: true });
    expect(pairOf(radar.view().conflicts, 'mine', 'theirs')?.level).toBe('soft');
    for (let i = 0; i < 3; i++)
      expect((await radar.pass()).elsewhere).toEqual({ sessions: 1, fetched: false, fetchMs: 0 });
    expect(snapshots.fetches).toBe(1);

    // Beta pushes work on line 10: not seen until its version moves.
    pushAs(theirs.session.id, 'theirs', numbered(40, { 10: 'theirs now here too', 30: 'far away' }));
    await radar.pass();
    expect(pairOf(radar.view().conflicts, 'mine', 'theirs')?.level).toBe('soft');
    theirs.version = '2';
    expect((await radar.pass()).elsewhere).toMatchObject({ fetched: true });
    expect(snapshots.fetches).toBe(2);
    expect(pairOf(radar.view().conflicts, 'mine', 'theirs')?.level).toBe('hot');

    // A member gone from the list is gone from the radar, without a fetch.
    members.length = 0;
    const gone = await radar.pass();
    expect(gone.elsewhere).toEqual({ sessions: 0, fetched: false, fetchMs: 0 });
    expect(radar.view().conflicts).toEqual([]);
    expect(f.events.find((e) => e.type === 'radar.conflict_cleared')?.data).toMatchObject({
      reason: 'removed',
    });
  });

  it('tells only the local agent of a hot pair with a remote session', () => {
    const teller = new AgentTeller(
      {
        get: (id) => ({ id, removed_at: null, state: 'working' }) as unknown as SessionWithProject,
        isRunning: () => false,
        reply: () => Promise.resolve(),
      },
      () => ({ radar: { tellAgents: true } }),
    );
    const side = (id: string, machine?: string) => ({
      kind: 'session' as const,
      sessionId: id,
      name: id,
      branch: `baton/${id}`,
      ...(machine === undefined ? {} : { machine }),
    });
    const conflict: Conflict = {
      key: 'here:there',
      project: 'p',
      projectRoot: '/p',
      level: 'hot',
      a: side('here'),
      b: side('there', 'beta'),
      mergeBase: 'x',
      files: [],
      note: null,
    };
    teller.afterPass([conflict], [conflict]);
    expect(teller.waiting('here')).toBe(1);
    expect(teller.waiting('there')).toBe(0);
  });
});
