import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile } from '../../test/support/postgres.js';
import { ClusterDispatches, DISPATCH_ANSWER_CHANNEL } from './dispatches.js';
import { Listener } from './listener.js';
import { Placement, type Reaped } from './placement.js';
import { fetchBranch, fetchSnapshot, pushedWork, reapEvery, Respawns } from './respawn.js';
import { migrate } from './schema.js';
import { WorkerRegistry } from './workers.js';

const server = postgresForFile();
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function store(): Promise<{ url: string; pool: pg.Pool; registry: WorkerRegistry }> {
  const url = await server().database();
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  cleanups.push(() => pool.end());
  await migrate(pool);
  return { url, pool, registry: new WorkerRegistry(pool, { heartbeatMs: 1_000, missedBeats: 3 }) };
}

/** A placement held by `worker`'s `incarnation`, and the dispatch that started `sessionId` there. */
async function placed(
  pool: pg.Pool,
  input: { placementId: string; worker: string; incarnation: number; sessionId: string },
): Promise<void> {
  await pool.query(
    `INSERT INTO placements (session_id, worker, incarnation, state, reason, target, updated_at) VALUES ($1, $2, $3, 'placed', NULL, 'any', now())`,
    [input.placementId, input.worker, input.incarnation],
  );
  const listener = new Listener('postgres://unused', [DISPATCH_ANSWER_CHANNEL]);
  const dispatches = new ClusterDispatches(pool, listener);
  await dispatches.create({
    placementId: input.placementId,
    origin: 'alpha',
    request: { prompt: 'p', cwd: '/origin/shop', name: 'n' },
    url: 'ssh://git.example/shop.git',
    base: 'main',
    project: 'shop',
  });
  await dispatches.answer(input.placementId, {
    kind: 'started',
    machine: input.worker,
    sessionId: input.sessionId,
    session: { id: input.sessionId },
  });
}

async function age(pool: pg.Pool, name: string, ms: number): Promise<void> {
  await pool.query(
    'UPDATE workers SET heartbeat_at = now() - make_interval(secs => $2::double precision / 1000) WHERE name = $1',
    [name, ms],
  );
}

describe('reaping on a timer', () => {
  test('the timed reaper fails only a stale worker’s placements: a deregistered or restarted one adopts its own', async () => {
    const { url, pool, registry } = await store();
    const placement = await Placement.start({ url, pool });
    cleanups.push(() => placement.stop());
    const stale = await registry.register({ name: 'stale', capacity: 1, version: '1' });
    const gone = await registry.register({ name: 'gone', capacity: 1, version: '1' });
    const restarted = await registry.register({ name: 'restarted', capacity: 1, version: '1' });
    await placed(pool, {
      placementId: 'p-stale',
      worker: 'stale',
      incarnation: stale.incarnation,
      sessionId: 's1',
    });
    await placed(pool, {
      placementId: 'p-gone',
      worker: 'gone',
      incarnation: gone.incarnation,
      sessionId: 's2',
    });
    await placed(pool, {
      placementId: 'p-restarted',
      worker: 'restarted',
      incarnation: restarted.incarnation,
      sessionId: 's3',
    });
    await age(pool, 'stale', 3_100);
    await registry.deregister('gone', gone.incarnation);
    await registry.register({ name: 'restarted', capacity: 1, version: '1' });

    const reaped = await placement.reap(registry, { staleOnly: true });
    expect(reaped.map((r) => r.sessionId)).toEqual(['p-stale']);
    expect(reaped[0]!.reason).toMatch(/^worker stale stopped heartbeating \(3 missed heartbeats, last at /);
    expect((await placement.placementOf('p-gone'))?.state).toBe('placed');
    expect((await placement.placementOf('p-restarted'))?.state).toBe('placed');
    // The full reap (a respawn's own judgement before decision 129) still takes them all.
    expect((await placement.reap(registry)).map((r) => r.sessionId).sort()).toEqual([
      'p-gone',
      'p-restarted',
    ]);
  });

  test('reapEvery reaps at each tick, reports what it reaped, and never runs two reaps at once', async () => {
    let tick: () => void = () => {};
    let stopped = false;
    const calls: { staleOnly?: boolean }[] = [];
    const answers: ((reaped: Reaped[]) => void)[] = [];
    const reported: Reaped[][] = [];
    const stop = reapEvery({
      placement: {
        reap: (_registry, options) => (
          calls.push(options ?? {}),
          new Promise<Reaped[]>((resolve) => answers.push(resolve))
        ),
      },
      registry: {} as WorkerRegistry,
      ms: 200,
      every: (ms, beat) => {
        expect(ms).toBe(200);
        tick = beat;
        return () => (stopped = true);
      },
      onReaped: (reaped) => reported.push(reaped),
      onError: (error) => {
        throw error;
      },
    });
    tick();
    tick(); // the first reap is still running: skipped
    expect(calls).toEqual([{ staleOnly: true }]);
    answers.shift()!([]);
    await new Promise((resolve) => setImmediate(resolve));
    tick();
    const lost: Reaped = {
      sessionId: 'p1',
      worker: 'beta',
      reason: 'worker beta stopped heartbeating',
      on: 'any',
    };
    answers.shift()!([lost]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(2);
    expect(reported).toEqual([[lost]]);
    stop();
    expect(stopped).toBe(true);
  });
});

describe('taking a reaped placement for a respawn', () => {
  test('is refused for a session not placed through the queue and for one still placed, and taken once when respawns race', async () => {
    const { pool, registry } = await store();
    const beta = await registry.register({ name: 'beta', capacity: 1, version: '1' });
    await placed(pool, { placementId: 'p1', worker: 'beta', incarnation: beta.incarnation, sessionId: 's1' });
    const alpha = new Respawns(pool);
    const gamma = new Respawns(pool);

    expect(await alpha.take('beta', 'local-session', 'alpha')).toEqual({ kind: 'not_placed' });
    expect(await alpha.take('beta', 's1', 'alpha')).toEqual({
      kind: 'not_failed',
      state: 'placed',
      reason: null,
    });

    await pool.query(
      `UPDATE placements SET state = 'failed', reason = 'worker beta stopped heartbeating' WHERE session_id = 'p1'`,
    );
    const [first, second] = await Promise.all([
      alpha.take('beta', 's1', 'alpha'),
      gamma.take('beta', 's1', 'gamma'),
    ]);
    const taken = [first, second].filter((t) => t.kind === 'taken');
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({
      kind: 'taken',
      reason: 'worker beta stopped heartbeating',
      dispatch: {
        placementId: 'p1',
        origin: 'alpha',
        request: { prompt: 'p', name: 'n' },
        url: 'ssh://git.example/shop.git',
        base: 'main',
      },
    });
    const loser = [first, second].find((t) => t.kind !== 'taken');
    expect(loser).toMatchObject({
      kind: 'not_failed',
      state: 'finished',
      reason: expect.stringMatching(/^respawned by (alpha|gamma) after: worker beta stopped heartbeating$/),
    });

    // A respawn that could not be placed gives it back, to be tried again.
    await alpha.giveBack('p1', 'worker beta stopped heartbeating');
    expect(await alpha.take('beta', 's1', 'alpha')).toMatchObject({ kind: 'taken' });
  });
});

describe('a restarted worker’s placements left behind', () => {
  test('fail with the reason, only those of its earlier incarnations still placed', async () => {
    const { pool } = await store();
    await placed(pool, { placementId: 'lost', worker: 'beta', incarnation: 1, sessionId: 's1' });
    await placed(pool, { placementId: 'adopted', worker: 'beta', incarnation: 2, sessionId: 's2' });
    await placed(pool, { placementId: 'elsewhere', worker: 'alpha', incarnation: 1, sessionId: 's3' });
    await placed(pool, { placementId: 'done', worker: 'beta', incarnation: 1, sessionId: 's4' });
    await pool.query(`UPDATE placements SET state = 'finished' WHERE session_id = 'done'`);

    const failed = await new Respawns(pool).failLeftBehind('beta', 2);
    expect(failed).toEqual([
      {
        placementId: 'lost',
        reason: 'worker beta restarted and no longer runs the session (its host did not survive the restart)',
      },
    ]);
    const { rows } = await pool.query<{ session_id: string; state: string }>(
      'SELECT session_id, state FROM placements ORDER BY session_id',
    );
    expect(rows).toEqual([
      { session_id: 'adopted', state: 'placed' },
      { session_id: 'done', state: 'finished' },
      { session_id: 'elsewhere', state: 'placed' },
      { session_id: 'lost', state: 'failed' },
    ]);
  });
});

describe('a session resumed on its own machine', () => {
  test('takes its placement back while it is held or failed, and not once a respawn elsewhere took it', async () => {
    const { pool } = await store();
    await placed(pool, { placementId: 'held', worker: 'beta', incarnation: 1, sessionId: 's1' });
    await placed(pool, { placementId: 'reaped', worker: 'beta', incarnation: 1, sessionId: 's2' });
    await placed(pool, { placementId: 'taken', worker: 'beta', incarnation: 1, sessionId: 's3' });
    await pool.query(
      `UPDATE placements SET state = 'failed', reason = 'worker beta stopped heartbeating' WHERE session_id IN ('reaped', 'taken')`,
    );
    const respawns = new Respawns(pool);
    expect(await respawns.take('beta', 's3', 'alpha')).toMatchObject({ kind: 'taken' });

    expect(await respawns.takeBack('held', 'beta', 2)).toBeUndefined();
    expect(await respawns.takeBack('reaped', 'beta', 2)).toBeUndefined();
    expect(await respawns.takeBack('taken', 'beta', 2)).toEqual({
      state: 'finished',
      reason: 'respawned by alpha after: worker beta stopped heartbeating',
    });
    expect(await respawns.takeBack('nothing', 'beta', 2)).toEqual({ state: 'gone', reason: null });
    // Another machine cannot take a placement held by beta.
    expect(await respawns.takeBack('held', 'gamma', 1)).toEqual({ state: 'placed', reason: null });
    const { rows } = await pool.query<{ session_id: string; state: string; incarnation: string }>(
      'SELECT session_id, state, incarnation FROM placements ORDER BY session_id',
    );
    expect(rows).toEqual([
      { session_id: 'held', state: 'placed', incarnation: '2' },
      { session_id: 'reaped', state: 'placed', incarnation: '2' },
      { session_id: 'taken', state: 'finished', incarnation: '1' },
    ]);
    // Held again: a respawn elsewhere is refused.
    expect(await respawns.take('beta', 's2', 'alpha')).toMatchObject({ kind: 'not_failed', state: 'placed' });
  });
});

/** A bare remote and a working repository with one commit on main, removed after the test. */
function gitRemote(): {
  root: string;
  sh: (cwd: string, ...args: string[]) => string;
  remote: string;
  work: string;
} {
  const root = mkdtempSync(join(tmpdir(), 'baton-respawn-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const sh = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    }).trim();
  const remote = join(root, 'remote.git');
  sh(root, 'init', '--quiet', '--bare', '-b', 'main', remote);
  const work = join(root, 'work');
  sh(root, 'init', '--quiet', '-b', 'main', work);
  writeFileSync(join(work, 'a.txt'), 'a\n');
  sh(work, 'add', '--all');
  sh(work, 'commit', '-qm', 'a');
  return { root, sh, remote, work };
}

describe('the branch a session pushed', () => {
  test('is found on the remote by name and fetched into a clone as a local branch, never over a different one', async () => {
    const { root, sh, remote, work } = gitRemote();
    sh(work, 'push', '--quiet', remote, 'main:refs/heads/main', 'main:refs/heads/baton/pushed');
    const tip = sh(work, 'rev-parse', 'HEAD');

    expect(await pushedWork(root, remote, 'pushed', 's1')).toEqual({ branch: 'baton/pushed' });
    expect(await pushedWork(root, remote, 'never', 's1')).toEqual({});
    const clone = join(root, 'clone');
    sh(root, 'clone', '--quiet', remote, clone);
    await fetchBranch(clone, remote, 'baton/pushed');
    expect(sh(clone, 'rev-parse', 'refs/heads/baton/pushed')).toBe(tip);

    // A local branch of that name that went its own way is left alone: the fetch is refused.
    sh(clone, 'checkout', '--quiet', '-b', 'baton/other', 'main');
    writeFileSync(join(clone, 'b.txt'), 'b\n');
    sh(clone, 'add', '--all');
    sh(clone, 'commit', '-qm', 'b');
    sh(clone, 'checkout', '--quiet', 'main');
    sh(work, 'commit', '-qm', 'c', '--allow-empty');
    sh(work, 'push', '--quiet', remote, 'HEAD:refs/heads/baton/other');
    await expect(fetchBranch(clone, remote, 'baton/other')).rejects.toThrow();
  });
});

describe('the snapshot of uncommitted work a session pushed', () => {
  test('is found beside its branch, fetched and checked to sit on the branch tip before it is laid over', async () => {
    const { root, sh, remote, work } = gitRemote();
    const tip = sh(work, 'rev-parse', 'HEAD');
    writeFileSync(join(work, 'wip.txt'), 'wip\n');
    sh(work, 'add', '--all');
    const tree = sh(work, 'write-tree');
    const snapshot = sh(work, 'commit-tree', tree, '-p', tip, '-m', 'snapshot');
    sh(
      work,
      'push',
      '--quiet',
      remote,
      'main:refs/heads/main',
      'main:refs/heads/baton/notes',
      `${snapshot}:refs/baton/snapshots/s1`,
    );

    const found = await pushedWork(root, remote, 'notes', 's1');
    expect(found).toEqual({
      branch: 'baton/notes',
      snapshot: { ref: 'refs/baton/snapshots/s1', commit: snapshot },
    });
    // An id that could not be a session's never becomes part of a ref.
    expect(await pushedWork(root, remote, 'notes', '../s1')).toEqual({ branch: 'baton/notes' });

    const clone = join(root, 'clone');
    sh(root, 'clone', '--quiet', remote, clone);
    await fetchBranch(clone, remote, 'baton/notes');
    expect(await fetchSnapshot(clone, remote, found.snapshot, 'baton/notes')).toEqual({ head: tip, tree });
    await expect(
      fetchSnapshot(clone, remote, { ref: 'refs/heads/main', commit: snapshot }, 'baton/notes'),
    ).rejects.toThrow(/respawnSnapshot must be \{"ref": "refs\/baton\/snapshots\/<session id>"/);
    await expect(
      fetchSnapshot(clone, remote, { ref: 'refs/baton/snapshots/s1', commit: tip }, 'baton/notes'),
    ).rejects.toThrow('moved');

    // The branch pushed on without it: the snapshot is stale and is not laid over.
    sh(work, 'commit', '-qm', 'b', '--allow-empty');
    sh(work, 'push', '--quiet', remote, 'main:refs/heads/baton/notes');
    await fetchBranch(clone, remote, 'baton/notes');
    await expect(fetchSnapshot(clone, remote, found.snapshot, 'baton/notes')).rejects.toThrow(
      /was taken on .*, but baton\/notes is at .*: laying it over would bring back stale work/,
    );
  });
});
