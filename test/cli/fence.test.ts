/**
 * What a machine that lost its placements does when it comes back (decision 136, "A machine that lost
 * its placements lets them go"): two supervisors sharing a test PostgreSQL and a bare remote. Beta's
 * supervisor is frozen (SIGSTOP; its session hosts run on) until alpha reaps and respawns its session;
 * thawed, beta's heartbeat learns the placement is no longer its own and beta stops its copy, keeping
 * its worktree, while alpha's runs. A beta that restarts after its hosts died with it fails the
 * placements it cannot take back, so alpha can respawn them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { TestBaton } from '../support/baton.js';
import {
  clusterMachines,
  placementState,
  placementUntil,
  scripted,
  sessionUntil,
  sharedRepo,
  ACROSS_MACHINES,
} from '../support/cluster.js';
import { until } from '../support/wait.js';

const { database, machine } = clusterMachines();

/** `name` as `side` lists it on `machineName`. */
async function sessionOn(
  side: TestBaton,
  name: string,
  machineName: string,
): Promise<SessionView | undefined> {
  return (await side.json<SessionView[]>(['ls'])).find((s) => s.name === name && s.machine === machineName);
}

describe('a machine that lost its placements', () => {
  it('stops its copy of a session respawned elsewhere while it was frozen, keeping the worktree, and pushes nothing of it', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo, remote } = sharedRepo(alpha, { sync: { push: 'turn' } });
    const placed = await alpha.json<SessionView>(
      [
        'dispatch',
        'think long',
        '--name',
        'long',
        '--on',
        'beta',
        ...scripted(alpha, [{ say: 'thinking' }, { sleep: 600_000 }]),
      ],
      { cwd: repo },
    );
    // Reaped with it, but nobody respawns this one: beta takes it back.
    const other = await alpha.json<SessionView>(
      [
        'dispatch',
        'think too',
        '--name',
        'other',
        '--on',
        'beta',
        ...scripted(alpha, [{ say: 'thinking too' }, { sleep: 600_000 }]),
      ],
      { cwd: repo },
    );
    await beta.waitForEvent('long', (e) => e.type === 'message.added' && e.text === 'thinking');
    await beta.waitForEvent('other', (e) => e.type === 'message.added' && e.text === 'thinking too');

    const supervisor = beta.supervisorPid();
    process.kill(supervisor, 'SIGSTOP');
    try {
      await placementUntil(url, placed.id, 'failed');
      await placementUntil(url, other.id, 'failed');
      await sessionUntil(
        alpha,
        'long',
        (s) => s.machine === 'beta' && s.state === 'failed',
        'alpha shows beta’s long failed',
      );
      const respawned = await alpha.json<SessionView>(['respawn', 'long']);
      expect(respawned).toMatchObject({ name: 'long', machine: 'alpha' });
      await alpha.waitForEvent('long', (e) => e.type === 'message.added' && e.text === 'thinking');
    } finally {
      process.kill(supervisor, 'SIGCONT');
    }

    // Beta's next heartbeat is fenced: its copy stops, saying why, and nothing of it is deleted.
    const stopped = await beta.waitForState('long', 'stopped');
    expect(stopped.machine ?? 'beta').toBe('beta');
    expect(stopped.reason).toEqual({
      kind: 'note',
      message: expect.stringMatching(
        /^stopped on beta: this machine no longer holds the session's placement \(it is finished: respawned by alpha after: worker beta stopped heartbeating .*\); another machine may run it now\. Its worktree and transcript are kept here\.$/,
      ),
    });
    expect(existsSync(stopped.worktree)).toBe(true);
    const ended = await beta.waitForEvent('long', (e) => e.type === 'session.ended');
    expect(ended).toMatchObject({
      reason: 'stopped',
      message: expect.stringContaining('no longer holds the session'),
    });
    const log = (): string => readFileSync(join(beta.home, 'supervisor.log'), 'utf8');
    expect(log()).toContain('stopping a session whose placement this machine no longer holds');
    // The stop is a turn end, but beta's copy no longer pushes: the respawn owns the branch now.
    await until(
      () => log().includes('not pushed: another machine holds the session now'),
      'beta passed over the push of its stopped copy',
      ACROSS_MACHINES,
    );
    expect(alpha.git(remote, 'for-each-ref', 'refs/heads/baton/long')).toBe('');
    expect(await sessionOn(alpha, 'long', 'alpha')).toMatchObject({ state: 'working' });
    await placementUntil(url, other.id, 'placed');
    expect(await sessionOn(beta, 'other', 'beta')).toMatchObject({ state: 'working' });
    expect(log()).toContain('took back a placement reaped while this machine was away');
    expect(beta.hostPids()).toHaveLength(1);

    // Started again by hand on beta, it would run beside alpha's: refused, saying where it runs.
    for (const again of [
      ['respawn', 'long'],
      ['reply', 'long', 'carry on'],
      ['respawn', '--all'],
    ]) {
      const refused = await beta.run(again);
      expect(refused.code, again.join(' ')).toBe(4);
      expect(refused.stderr).toContain(
        'Session long cannot start again on beta: another machine holds it now, its placement is finished (respawned by alpha after: worker beta stopped heartbeating',
      );
    }
    expect(await sessionOn(beta, 'long', 'beta')).toMatchObject({ state: 'stopped' });

    // After a restart beta still knows the copy is not its own: not pushed by hand, nor started.
    await beta.ok(['daemon', 'stop']);
    await beta.ok(['daemon', 'start']);
    const pushed = await beta.run(['sync', 'long', '--now']);
    expect(pushed.code).toBe(4);
    expect(pushed.stderr).toContain(
      'Session long is held by another machine now (it was respawned there): its branch is pushed from there',
    );
    expect(alpha.git(remote, 'for-each-ref', 'refs/heads/baton/long')).toBe('');
    const refused = await beta.run(['reply', 'long', 'carry on']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('Session long cannot start again on beta: another machine holds it now');
  });

  it('fails at a restart the placements whose sessions died with the machine, so another machine can respawn them', async () => {
    const url = await database();
    // Heartbeats every 20 s: alpha's reaper would call beta stale only after a minute, so beta's restart is what fails the placement.
    const slow = { BATON_CLUSTER_HEARTBEAT_MS: '20000' };
    const alpha = await machine('alpha', url, slow);
    const beta = await machine('beta', url, slow);
    const { repo } = sharedRepo(alpha);
    const long = await alpha.json<SessionView>(
      [
        'dispatch',
        'think long',
        '--name',
        'long',
        '--on',
        'beta',
        ...scripted(alpha, [{ say: 'thinking' }, { sleep: 600_000 }]),
      ],
      { cwd: repo },
    );
    const rest = await alpha.json<SessionView>(
      ['dispatch', 'say done', '--name', 'rest', '--on', 'beta', ...scripted(alpha, [{ say: 'done' }])],
      { cwd: repo },
    );
    await beta.waitForEvent('long', (e) => e.type === 'message.added' && e.text === 'thinking');
    await beta.waitForState('rest', 'ready_for_review');
    // Stopped: its host has ended, so it has none to lose.
    await beta.ok(['stop', 'rest']);

    // Beta goes down whole (a reboot) and comes back under its name.
    for (const pid of [beta.supervisorPid(), ...beta.hostPids()]) process.kill(pid, 'SIGKILL');
    await beta.ok(['daemon', 'start']);

    // Its host gone with the machine: failed with the reason. Stopped, with no host: still beta's.
    await placementUntil(url, long.id, 'failed');
    expect(await placementReason(url, long.id)).toBe(
      'worker beta restarted and no longer runs the session (its host did not survive the restart)',
    );
    expect(await placementState(url, rest.id)).toBe('placed');
    expect(readFileSync(join(beta.home, 'supervisor.log'), 'utf8')).toContain(
      'a placed session did not survive this machine’s restart',
    );

    await sessionUntil(
      alpha,
      'long',
      (s) => s.machine === 'beta' && s.state === 'failed',
      'alpha shows beta’s long failed',
    );
    const respawned = await alpha.json<SessionView>(['respawn', 'long']);
    expect(respawned).toMatchObject({ name: 'long', machine: 'alpha' });
    const refused = await alpha.run(['respawn', 'rest']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('Session rest runs on beta and is stopped');
  });
});

async function placementReason(url: string, sessionId: string): Promise<string | null | undefined> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await pool.query<{ reason: string | null }>(
      'SELECT p.reason FROM placements p JOIN cluster_dispatches d ON d.placement_id = p.session_id WHERE d.session_id = $1',
      [sessionId],
    );
    return rows[0]?.reason;
  } finally {
    await pool.end();
  }
}
