/**
 * `baton dispatch --on any|<machine>` (decision 128, "`dispatch --on`"): two supervisors sharing a test
 * PostgreSQL and a bare git remote. A dispatch on a full machine runs on one with a free slot,
 * in a clone made from the remote; `--on` sends it to a named machine even when this one is
 * free; bad and unknown names, a repository without a remote and a machine that is not
 * clustered are refused with the reason.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { clusterMachines, placementUntil, scripted, sessionUntil, sharedRepo } from '../support/cluster.js';

const { database, machine } = clusterMachines();

describe('dispatch placed on another machine', () => {
  it('runs on the machine with a free slot when this one is full, in a clone of the shared remote', async () => {
    const url = await database();
    const alpha = await machine('alpha', url, { BATON_MAX_CONCURRENT: '1' });
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha);
    await alpha.ok(
      ['dispatch', 'keep busy', '--name', 'long', ...scripted(alpha, [{ say: 'busy' }, { sleep: 600_000 }])],
      { cwd: repo },
    );
    await alpha.waitForEvent('long', (e) => e.type === 'message.added' && e.text === 'busy');

    const placed = await alpha.json<SessionView>(
      ['dispatch', 'write the notes', '--name', 'notes', ...scripted(alpha, [{ say: 'written' }])],
      { cwd: repo },
    );
    expect(placed).toMatchObject({ name: 'notes', machine: 'beta', agent: 'scripted' });
    await placementUntil(url, placed.id, 'placed');
    // Beta had no checkout of the repository: it cloned the remote under its own home.
    expect(placed.projectRoot).toBe(join(beta.home, 'clones', 'shop'));
    expect(beta.git(placed.projectRoot, 'remote', 'get-url', 'origin')).toBe(join(alpha.root, 'remote.git'));
    await beta.waitForState('notes', 'ready_for_review');
    await sessionUntil(
      alpha,
      'notes',
      (s) => s.machine === 'beta' && s.state === 'ready_for_review',
      'alpha sees notes done on beta',
    );
    const long = (await alpha.json<SessionView[]>(['ls'])).find((s) => s.name === 'long');
    expect(long).toMatchObject({ machine: 'alpha', state: 'working' });

    // Beta restarts (its session hosts keep running): it takes the placement back, and once the
    // session is completed there, the placement is finished.
    await beta.ok(['daemon', 'stop']);
    await beta.ok(['daemon', 'start']);
    await beta.ok(['done', 'notes']);
    await placementUntil(url, placed.id, 'finished');

    // A second placement finds the earlier clone rather than cloning again.
    const again = await alpha.json<SessionView>(
      ['dispatch', 'more notes', '--name', 'more', ...scripted(alpha, [{ say: 'more' }])],
      { cwd: repo },
    );
    expect(again).toMatchObject({ machine: 'beta', projectRoot: placed.projectRoot });
  });

  it('places with --on on the named machine even when this one is free, and refuses what cannot be placed', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha);
    const placed = await alpha.json<SessionView>(
      ['dispatch', 'on beta', '--name', 'there', '--on', 'beta', ...scripted(alpha, [{ say: 'hi' }])],
      { cwd: repo },
    );
    expect(placed.machine).toBe('beta');
    expect(placed.baseCommit).toBe(alpha.git(repo, 'rev-parse', 'HEAD'));
    await beta.waitForState('there', 'ready_for_review');
    // --wait follows a session on another machine until it settles.
    const waited = await alpha.run(
      [
        'dispatch',
        'and wait',
        '--name',
        'waited',
        '--on',
        'beta',
        '--wait',
        ...scripted(alpha, [{ ask: 'Which one?' }]),
      ],
      { cwd: repo },
    );
    expect(waited.stdout).toContain('waited: needs input: Which one?');
    expect(waited.code).toBe(10);
    // Its own name runs here.
    const here = await alpha.json<SessionView>(
      ['dispatch', 'here', '--name', 'here', '--on', 'alpha', ...scripted(alpha, [{ say: 'hi' }])],
      { cwd: repo },
    );
    expect(here).toMatchObject({ machine: 'alpha', projectRoot: repo });
    // Recorded as placed here (decision 137), held while it lives and finished when it completes.
    await placementUntil(url, here.id, 'placed');
    await alpha.waitForState('here', 'ready_for_review');
    await alpha.ok(['done', 'here']);
    await placementUntil(url, here.id, 'finished');

    const unknown = await alpha.run(['dispatch', 'x', '--on', 'nosuch', ...scripted(alpha, [{ say: 'x' }])], {
      cwd: repo,
    });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain(
      'No machine named "nosuch" serves this workspace (registered: alpha, beta)',
    );
    const bad = await alpha.run(['dispatch', 'x', '--on', 'no such!', ...scripted(alpha, [{ say: 'x' }])], {
      cwd: repo,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/\bon\b/);
    expect(bad.stderr).toContain('no such!');

    const lonely = alpha.repo('lonely');
    const noRemote = await alpha.run(['dispatch', 'x', '--on', 'beta', ...scripted(alpha, [{ say: 'x' }])], {
      cwd: lonely,
    });
    expect(noRemote.code).toBe(2);
    expect(noRemote.stderr).toContain('has no remote "origin", so another machine cannot fetch it');
    const carried = await alpha.run(
      ['dispatch', 'x', '--on', 'beta', '--carry-changes', ...scripted(alpha, [{ say: 'x' }])],
      { cwd: repo },
    );
    expect(carried.stderr).toContain('--carry-changes works on this machine');
    expect(beta.processes().length).toBeGreaterThan(0);
  });

  it('places a --branch session where the branch can be fetched from the remote, and refuses a branch the remote does not have', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha);
    alpha.git(repo, 'checkout', '--quiet', '-b', 'feature');
    writeFileSync(join(repo, 'feature.txt'), 'started on alpha\n');
    alpha.git(repo, 'add', 'feature.txt');
    alpha.git(repo, 'commit', '--quiet', '-m', 'feature begun');
    alpha.git(repo, 'checkout', '--quiet', 'main');
    const unpushed = await alpha.run(
      ['dispatch', 'x', '--on', 'beta', '--branch', 'feature', ...scripted(alpha, [{ say: 'x' }])],
      { cwd: repo },
    );
    expect(unpushed.code).toBe(2);
    expect(unpushed.stderr).toContain('--branch feature is not on the remote');
    expect(unpushed.stderr).toContain('git push origin feature');

    alpha.git(repo, 'push', '--quiet', 'origin', 'feature');
    const placed = await alpha.json<SessionView>(
      [
        'dispatch',
        'go on',
        '--name',
        'onward',
        '--on',
        'beta',
        '--branch',
        'feature',
        ...scripted(alpha, [{ say: 'on it' }]),
      ],
      { cwd: repo },
    );
    expect(placed).toMatchObject({ machine: 'beta', branch: 'feature' });
    const done = await beta.waitForState('onward', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'feature.txt'), 'utf8')).toBe('started on alpha\n');
  });

  it('says a placement no machine takes in time stays queued, and it runs once the machine is back', async () => {
    const url = await database();
    const alpha = await machine('alpha', url, { BATON_CLUSTER_PLACE_TIMEOUT_MS: '1500' });
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha);
    process.kill(beta.supervisorPid(), 'SIGSTOP');
    try {
      const queued = await alpha.run(
        ['dispatch', 'later', '--name', 'later', '--on', 'beta', ...scripted(alpha, [{ say: 'late' }])],
        { cwd: repo },
      );
      expect(queued.code).not.toBe(0);
      expect(queued.stderr).toContain(
        'No machine started the session within 1500 ms; it stays queued for "beta"',
      );
    } finally {
      process.kill(beta.supervisorPid(), 'SIGCONT');
    }
    await sessionUntil(
      alpha,
      'later',
      (s) => s.machine === 'beta' && s.state === 'ready_for_review',
      'the queued session runs on beta',
    );
  });

  it('runs a dispatch queued for any machine on the one it came from when its slot frees, in its own checkout', async () => {
    const url = await database();
    const alpha = await machine('alpha', url, {
      BATON_MAX_CONCURRENT: '1',
      BATON_CLUSTER_PLACE_TIMEOUT_MS: '1500',
    });
    const { repo } = sharedRepo(alpha);
    // Alpha's one slot is taken by a session of another repository: it has none in this one.
    const other = alpha.repo('other');
    await alpha.ok(
      ['dispatch', 'keep busy', '--name', 'long', ...scripted(alpha, [{ say: 'busy' }, { sleep: 600_000 }])],
      { cwd: other },
    );
    await alpha.waitForEvent('long', (e) => e.type === 'message.added' && e.text === 'busy');
    const queued = await alpha.run(
      ['dispatch', 'later', '--name', 'later', ...scripted(alpha, [{ say: 'late' }])],
      { cwd: repo },
    );
    expect(queued.stderr).toContain(
      'No machine started the session within 1500 ms; it stays queued and runs when a machine frees a slot',
    );
    await alpha.ok(['stop', 'long']);
    const later = await sessionUntil(
      alpha,
      'later',
      (s) => s.state === 'ready_for_review',
      'the queued session runs on alpha',
    );
    expect(later).toMatchObject({ machine: 'alpha', projectRoot: repo });
    expect(existsSync(join(alpha.home, 'clones'))).toBe(false);
  });

  it('refuses another machine on a machine that is not clustered, and runs its own name here', async () => {
    const solo = await machine('solo', undefined);
    const repo = solo.repo();
    const refused = await solo.run(['dispatch', 'x', '--on', 'other', ...scripted(solo, [{ say: 'x' }])], {
      cwd: repo,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'This machine is not clustered (no store is configured), so it cannot place a session on "other"',
    );
    const own = await solo.json<SessionView>(
      ['dispatch', 'x', '--name', 'own', '--on', 'solo', ...scripted(solo, [{ say: 'x' }])],
      { cwd: repo },
    );
    expect(own.projectRoot).toBe(repo);
    const any = await solo.json<SessionView>(
      ['dispatch', 'y', '--name', 'anywhere', '--on', 'any', ...scripted(solo, [{ say: 'y' }])],
      { cwd: repo },
    );
    expect(any.projectRoot).toBe(repo);
    const bestOf = await solo.run(
      ['dispatch', 'z', '--best-of', '2', '--on', 'solo', ...scripted(solo, [{ say: 'z' }])],
      { cwd: repo },
    );
    expect(bestOf.code).toBe(2);
    expect(bestOf.stderr).toContain('--on goes with a single dispatch');
  });
});
