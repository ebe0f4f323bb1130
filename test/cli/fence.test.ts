/**
 * What a machine that lost its placements does when it comes back (issue 20, decision 130): two
 * supervisors sharing a test PostgreSQL and a bare remote. Beta's supervisor is frozen (SIGSTOP;
 * its session hosts run on) until alpha reaps and respawns its session; thawed, beta's heartbeat
 * learns the placement is no longer its own and beta stops its copy, keeping its worktree, while
 * alpha's runs. A beta that restarts after its hosts died with it fails the placements it cannot
 * take back, so alpha can respawn them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { TestBaton } from '../support/baton.js';
import { clusterMachines, placementUntil, scripted, sessionUntil, sharedRepo } from '../support/cluster.js';

const { database, machine } = clusterMachines();

/** `name` as `side` lists it on `machineName`. */
async function sessionOn(side: TestBaton, name: string, machineName: string): Promise<SessionView | undefined> {
  return (await side.json<SessionView[]>(['ls'])).find((s) => s.name === name && s.machine === machineName);
}

describe('a machine that lost its placements', () => {
  it('stops its copy of a session respawned elsewhere while it was frozen, keeping the worktree', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha);
    const placed = await alpha.json<SessionView>(['dispatch', 'think long', '--name', 'long', '--on', 'beta', ...scripted(alpha, [{ say: 'thinking' }, { sleep: 600_000 }])], { cwd: repo });
    await beta.waitForEvent('long', (e) => e.type === 'message.added' && e.text === 'thinking');

    const supervisor = beta.supervisorPid();
    process.kill(supervisor, 'SIGSTOP');
    try {
      await placementUntil(url, placed.id, 'failed');
      await sessionUntil(alpha, 'long', (s) => s.machine === 'beta' && s.state === 'failed', 'alpha shows beta’s long failed');
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
      message: expect.stringMatching(/^stopped on beta: this machine no longer holds the session's placement \(it is finished: respawned by alpha after: worker beta stopped heartbeating .*\); another machine may run it now\. Its worktree and transcript are kept here\.$/),
    });
    expect(existsSync(stopped.worktree)).toBe(true);
    const ended = await beta.waitForEvent('long', (e) => e.type === 'session.ended');
    expect(ended).toMatchObject({ reason: 'stopped', message: expect.stringContaining('no longer holds the session') });
    expect(readFileSync(join(beta.home, 'supervisor.log'), 'utf8')).toContain('stopping a session whose placement this machine no longer holds');
    expect(await sessionOn(alpha, 'long', 'alpha')).toMatchObject({ state: 'working' });
    expect(beta.hostPids()).toEqual([]);
  });
});
