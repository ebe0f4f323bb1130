/**
 * A respawn brings back the uncommitted work too (decision 136, "A machine that lost its placements
 * lets them go"): beta's placed session commits one file and leaves another uncommitted at its turn
 * end, which sync pushes as its branch and a snapshot; beta dies whole, and alpha's respawn lays the
 * snapshot over the new worktree as uncommitted changes before the agent starts, and says so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import {
  clusterMachines,
  placementUntil,
  scripted,
  sessionUntil,
  sharedRepo,
  ACROSS_MACHINES,
} from '../support/cluster.js';
import { until } from '../support/wait.js';

const { database, machine } = clusterMachines();

describe('a respawn of a dead machine’s session', () => {
  it('lays the uncommitted work it pushed at its last turn end over the new worktree', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo, remote } = sharedRepo(alpha, { sync: { push: 'turn' } });

    // The same script runs again after the respawn: there it finds wip.txt already in place.
    const steps = [
      { write: { path: 'done.txt', content: 'committed on beta\n' } },
      { run: ['git', 'add', 'done.txt'] },
      { run: ['git', 'commit', '-q', '-m', 'done on beta'] },
      { run: 'if [ -e wip.txt ]; then echo found > found.txt; else echo "half done on beta" > wip.txt; fi' },
      { say: 'paused halfway' },
    ];
    const placed = await alpha.json<SessionView>(
      ['dispatch', 'write notes', '--name', 'notes', '--on', 'beta', ...scripted(alpha, steps)],
      { cwd: repo },
    );
    const snapshotRef = `refs/baton/snapshots/${placed.id}`;
    await until(
      () => alpha.git(remote, 'for-each-ref', '--format=%(objectname)', snapshotRef) || undefined,
      'beta pushed the snapshot',
      ACROSS_MACHINES,
    );
    await sessionUntil(
      alpha,
      'notes',
      (s) => s.machine === 'beta' && s.state === 'ready_for_review',
      'alpha sees notes done on beta',
    );

    for (const pid of [beta.supervisorPid(), ...beta.hostPids()]) process.kill(pid, 'SIGKILL');
    await placementUntil(url, placed.id, 'failed');
    await sessionUntil(
      alpha,
      'notes',
      (s) => s.machine === 'beta' && s.state === 'failed',
      'alpha shows notes failed',
    );

    const answer = await alpha.run(['respawn', 'notes', '--json']);
    expect(answer.code).toBe(0);
    expect(answer.stderr).toMatch(
      /warning: the uncommitted work beta pushed at notes's last turn end \(snapshot [0-9a-f]{10}\) is laid over the new worktree as uncommitted changes/,
    );
    const respawned = JSON.parse(answer.stdout) as SessionView;
    expect(respawned).toMatchObject({ name: 'notes', machine: 'alpha', branch: 'baton/notes' });
    await alpha.waitForState('notes', 'ready_for_review');

    const worktree = respawned.worktree;
    expect(readFileSync(join(worktree, 'wip.txt'), 'utf8')).toBe('half done on beta\n');
    // It was there before the agent's first step ran.
    expect(existsSync(join(worktree, 'found.txt'))).toBe(true);
    expect(alpha.git(worktree, 'status', '--porcelain', '--untracked-files=all').split('\n')).toContain(
      '?? wip.txt',
    );
    expect(alpha.git(worktree, 'log', '--format=%s', '-1')).toBe('done on beta');
  });
});
