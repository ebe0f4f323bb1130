/**
 * A dead machine's placed sessions respawned on another (decision 129): two supervisors
 * sharing a test PostgreSQL and a bare remote, with sync pushing sessions' branches at turn ends.
 * Beta runs a placed session that commits a file; beta's supervisor and session hosts are
 * SIGKILLed; alpha's timer reaps the placement, shows the session failed naming beta, and
 * `baton respawn` runs it on alpha from the branch beta pushed. A session never pushed starts
 * fresh and says so; one dispatched on beta itself from a clone of the remote is respawned too,
 * while one in a repository with no remote, one still alive and one respawned already are
 * refused with the reason.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { TestBaton } from '../support/baton.js';
import {
  clusterMachines,
  placementState,
  placementUntil,
  scripted,
  sharedRepo,
  ACROSS_MACHINES,
} from '../support/cluster.js';
import { until } from '../support/wait.js';

const { database, machine } = clusterMachines();

const sessionOn = (side: TestBaton, name: string, machineName: string) => async () =>
  (await side.json<SessionView[]>(['ls'])).find((s) => s.name === name && s.machine === machineName);

describe('a dead machine’s placed sessions', () => {
  it('are reaped by the others and respawned on alpha from the branch beta pushed', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo, remote } = sharedRepo(alpha, { sync: { push: 'turn' } });

    // A turn on beta that commits a file; its end pushes the branch to the remote.
    const commits = [
      { write: { path: 'notes.txt', content: 'written on beta\n' } },
      { run: ['git', 'add', '--all'] },
      { run: ['git', 'commit', '-q', '--allow-empty', '-m', 'notes from beta'] },
      { say: 'committed' },
    ];
    const placed = await alpha.json<SessionView>(
      ['dispatch', 'write notes', '--name', 'notes', '--on', 'beta', ...scripted(alpha, commits)],
      { cwd: repo },
    );
    expect(placed.machine).toBe('beta');
    const pushed = await until(
      async () =>
        alpha.git(remote, 'for-each-ref', '--format=%(objectname)', 'refs/heads/baton/notes') || undefined,
      'beta pushed baton/notes',
      ACROSS_MACHINES,
    );
    // One that never ends a turn: nothing is pushed.
    await alpha.ok(
      [
        'dispatch',
        'think long',
        '--name',
        'thinker',
        '--on',
        'beta',
        ...scripted(alpha, [{ say: 'thinking' }, { sleep: 600_000 }]),
      ],
      { cwd: repo },
    );
    // Two dispatched on beta itself: one in a clone of the shared remote (recorded as placed on
    // beta, so respawnable), one in a repository with no remote (beta's alone).
    const clone = join(beta.root, 'shop-clone');
    execFileSync('git', ['clone', '--quiet', remote, clone], { env: beta.env });
    const cloned = await beta.json<SessionView>(
      [
        'dispatch',
        'work in the clone',
        '--name',
        'cloned',
        ...scripted(beta, [{ say: 'in the clone' }, { sleep: 600_000 }]),
      ],
      { cwd: clone },
    );
    expect(cloned.machine).toBe('beta');
    await placementUntil(url, cloned.id, 'placed');
    const own = beta.repo('own');
    const unplaced = await beta.json<SessionView>(
      ['dispatch', 'local work', '--name', 'local', ...scripted(beta, [{ say: 'here' }])],
      { cwd: own },
    );
    expect(await placementState(url, unplaced.id)).toBeUndefined();
    await until(
      async () => {
        const notes = await sessionOn(alpha, 'notes', 'beta')();
        const others = await Promise.all(
          ['thinker', 'cloned', 'local'].map((name) => sessionOn(alpha, name, 'beta')()),
        );
        return notes?.state === 'ready_for_review' && others.every((s) => s !== undefined);
      },
      'alpha sees notes done, thinker, cloned and local',
      ACROSS_MACHINES,
    );

    const alive = await alpha.run(['respawn', 'notes']);
    expect(alive.code).toBe(4);
    expect(alive.stderr).toContain(
      'Session notes runs on beta and is ready for review: respawn places elsewhere only a session whose machine stopped heartbeating',
    );

    // Beta dies whole: its supervisor and its session hosts.
    const pids = [beta.supervisorPid(), ...beta.hostPids()];
    for (const pid of pids) process.kill(pid, 'SIGKILL');

    // Alpha's reaper fails the placement on its own timer, with no respawn asked for.
    await until(
      async () => (await placementState(url, placed.id)) === 'failed',
      'the placement of notes is reaped',
      ACROSS_MACHINES,
    );
    const failed = await until(
      async () => {
        const s = await sessionOn(alpha, 'notes', 'beta')();
        return s?.state === 'failed' ? s : undefined;
      },
      'alpha shows notes failed',
      ACROSS_MACHINES,
    );
    expect(failed.reason).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('machine beta stopped heartbeating'),
    });

    const respawned = await alpha.json<SessionView>(['respawn', 'notes']);
    expect(respawned).toMatchObject({
      name: 'notes',
      machine: 'alpha',
      branch: 'baton/notes',
      projectRoot: repo,
    });
    expect(readFileSync(join(respawned.worktree, 'notes.txt'), 'utf8')).toBe('written on beta\n');
    expect(alpha.git(respawned.worktree, 'log', '--format=%s', '-1', pushed.trim())).toBe('notes from beta');
    expect(alpha.git(respawned.worktree, 'merge-base', '--is-ancestor', pushed.trim(), 'HEAD')).toBe('');
    await alpha.waitForState('notes', 'ready_for_review');
    // Alpha's own now: its worktree is here, so it respawns here or not at all.
    const moved = await alpha.run(['respawn', 'notes', '--on', 'beta']);
    expect([moved.code, moved.stderr]).toEqual([
      2,
      expect.stringContaining(
        "is this machine's, and its worktree is here: it respawns here, so --on beta does not apply",
      ),
    ]);

    // Taken once: beta's session, by id, is no longer respawnable.
    const again = await alpha.run(['respawn', placed.id]);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain(
      'its placement is finished (respawned by alpha after: worker beta stopped heartbeating',
    );

    const fresh = await alpha.run(['respawn', 'thinker', '--json']);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain(
      'warning: the remote has no branch baton/thinker (nothing was pushed), so thinker starts fresh from main',
    );
    expect(JSON.parse(fresh.stdout)).toMatchObject({
      name: 'thinker',
      machine: 'alpha',
      branch: 'baton/thinker',
    });

    // Dispatched on beta from its clone: placed again, here, from the base (it pushed nothing).
    const nosuch = await alpha.run(['respawn', 'cloned', '--on', 'gamma']);
    expect([nosuch.code, nosuch.stderr]).toEqual([
      3,
      expect.stringContaining('No machine named "gamma" serves this workspace'),
    ]);
    const badName = await alpha.run(['respawn', 'cloned', '--on', 'no such!']);
    expect([badName.code, badName.stderr]).toEqual([2, expect.stringContaining('no such!')]);
    const all = await alpha.run(['respawn', '--all', '--on', 'alpha']);
    expect([all.code, all.stderr]).toEqual([
      2,
      expect.stringContaining('--on places one session of another machine'),
    ]);
    const again2 = await alpha.run(['respawn', 'cloned', '--on', 'alpha', '--json']);
    expect(again2.code).toBe(0);
    expect(again2.stderr).toContain(
      'warning: the remote has no branch baton/cloned (nothing was pushed), so cloned starts fresh from main',
    );
    expect(JSON.parse(again2.stdout)).toMatchObject({ name: 'cloned', machine: 'alpha', projectRoot: repo });

    const local = await alpha.run(['respawn', 'local']);
    expect(local.code).toBe(4);
    expect(local.stderr).toContain(
      "Session local was started on beta from that machine's own checkout (a repository with no remote, --in-place or --carry-changes), so no other machine can start it again",
    );
  });
});
