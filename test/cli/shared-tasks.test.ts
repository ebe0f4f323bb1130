/**
 * Tasks on a shared store (decision 147, "Tasks shared by the machines of a workspace"): two
 * supervisors sharing a test PostgreSQL and a bare git remote hold one board for the repository. A task
 * added in alpha's checkout is listed in beta's clone under the same number, a move on beta is alpha's
 * too (and alpha's page is told), a removal on alpha is beta's; a task on beta waiting for alpha's
 * starts once what alpha landed reaches the remote, on that base.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskBoard, TaskCard, TaskStarted } from '../../src/api/tasks.js';
import type { TestBaton } from '../support/baton.js';
import { clusterMachines, sharedClones, ACROSS_MACHINES } from '../support/cluster.js';
import { until } from '../support/wait.js';
import { addTask, card } from '../support/tasks.js';

const { database, machine } = clusterMachines();

async function listed(side: TestBaton, cwd: string, id: number): Promise<TaskCard | undefined> {
  const board = await side.json<TaskBoard>(['task', 'ls'], { cwd });
  return board.columns.flatMap((c) => c.tasks).find((t) => t.id === id);
}

describe('tasks shared by the machines of a workspace', () => {
  it("a task added on one machine is the other's under the same number: moved there, removed here", async () => {
    const url = await database();
    const [alpha, beta] = [await machine('alpha', url), await machine('beta', url)];
    const { here, there } = sharedClones(alpha, beta);
    // Beta's own task of a repository with no remote comes first: it stays beta's, but takes a number no one else will.
    const own = await addTask(beta, beta.repo('notes'), 'beta only');
    const added = await addTask(alpha, here, 'the watcher', '--scope', 'watcher/**');
    expect(added.id).toBe(own.id + 1);

    const seen = await until(() => listed(beta, there, added.id), "beta lists alpha's task", ACROSS_MACHINES);
    expect(seen).toMatchObject({
      title: 'the watcher',
      column: 'backlog',
      projectRoot: there,
      scope: ['watcher/**'],
    });
    expect(await listed(alpha, alpha.repo('notes'), own.id)).toBeUndefined();

    await beta.ok(['task', 'move', String(added.id), 'ready'], { cwd: there });
    await until(
      async () => (await card(alpha, here, added.id)).column === 'ready',
      'alpha sees the move',
      ACROSS_MACHINES,
    );
    expect(await card(alpha, here, added.id)).toMatchObject({ column: 'ready', columnSetBy: 'hand' });
    // Alpha's page is told to read its board again; beta's own task.moved reaches alpha relayed, not as alpha's.
    await alpha.workspaceEvent((e) => e.type === 'task.synced' && e.data.changed.includes(added.id), 10_000);

    await alpha.ok(['task', 'rm', String(added.id)], { cwd: here });
    await until(
      async () => (await listed(beta, there, added.id)) === undefined,
      'beta no longer lists it',
      ACROSS_MACHINES,
    );
    await expect(beta.json(['task', 'show', String(added.id)], { cwd: there })).rejects.toThrow(/task/i);
  });

  it("a task on one machine waiting for another machine's task starts when that one lands there", async () => {
    const url = await database();
    const [alpha, beta] = [
      await machine('alpha', url),
      await machine('beta', url, { BATON_TASK_RECHECK_MS: '200' }),
    ];
    const { here, there } = sharedClones(alpha, beta);
    const first = await addTask(alpha, here, 'first');
    await until(() => listed(beta, there, first.id), "beta lists alpha's task", ACROSS_MACHINES);
    const second = await addTask(beta, there, 'second', '--after', String(first.id));
    expect(second.waitingFor).toEqual([first.id]);
    await until(() => listed(alpha, here, second.id), "alpha lists beta's dependent task", ACROSS_MACHINES);

    const held = await beta.json<TaskStarted>(
      [
        'task',
        'start',
        String(second.id),
        '--agent',
        'scripted',
        '--name',
        'second',
        '--script',
        beta.script([{ say: 'ran' }]),
      ],
      { cwd: there },
    );
    expect(held.heldBy).toBe(`after task ${first.id} (first) lands`);
    await alpha.json<TaskStarted>(
      [
        'task',
        'start',
        String(first.id),
        '--agent',
        'scripted',
        '--name',
        'first',
        '--script',
        alpha.script([{ write: { path: 'first.txt', content: 'first\n' } }]),
      ],
      { cwd: here },
    );
    await alpha.waitForState('first', 'ready_for_review');
    expect(
      (await beta.client().call('GET /api/sessions/:ref', { params: { ref: 'second' } })).session.state,
    ).toBe('queued');

    const merged = await alpha.run(['merge', 'first', '--json'], { cwd: here });
    expect(merged.code, merged.stderr).toBe(0);
    const landed = JSON.parse(merged.stdout) as { commit: string };
    expect(await card(beta, there, first.id)).toMatchObject({
      column: 'done',
      columnSetBy: 'merge',
      mergedCommit: landed.commit,
    });
    // Landed on alpha's main, which beta cannot see until it is pushed: the session waits, saying so.
    const why = `after task ${first.id} (first) at ${landed.commit.slice(0, 12)}, landed on another machine: not on main here or on the remote yet (push it there)`;
    await until(
      async () =>
        (await beta.client().call('GET /api/sessions/:ref', { params: { ref: 'second' } })).session.heldBy ===
        why,
      'beta holds second until the landing reaches it',
      ACROSS_MACHINES,
    );
    expect(
      (await beta.client().call('GET /api/sessions/:ref', { params: { ref: 'second' } })).session.state,
    ).toBe('queued');
    alpha.git(here, 'push', '--quiet', 'origin', 'main');
    await beta.waitForState('second', 'ready_for_review');
    // It started on the remote's main, with the work first landed.
    const second2 = (await beta.client().call('GET /api/sessions/:ref', { params: { ref: 'second' } }))
      .session;
    expect(second2.baseCommit).toBe(landed.commit);
    expect(readFileSync(join(second2.worktree, 'first.txt'), 'utf8')).toBe('first\n');
  });
});
