/** The join of shared tasks (decision 147): which numbers stay a machine's own, and what is uploaded. */
import { describe, expect, test } from 'vitest';
import { NOW, eventually, localTask, sharedTaskMachines, task } from '../../test/support/shared-tasks.js';

const { database, started } = sharedTaskMachines();
const STAYS = (id: number): string =>
  `task ${id} stays on this machine only: another machine's task has its number in the shared store`;

describe('joining the shared tasks', () => {
  test("a task of a repository with no remote keeps its number at the join: the store's task of that number is not written over it", async () => {
    const url = await database();
    const alpha = await started(url, 'alpha', (m) => localTask(m, m.project, 'alpha shop'));
    const beta = await started(url, 'beta', (m) => localTask(m, m.local, 'beta private'));
    expect(beta.tasks.get(1)).toMatchObject({ title: 'beta private', project_id: beta.local });
    expect(beta.warnings).toEqual([STAYS(1)]);
    expect(beta.shared.sharedKey(beta.tasks.get(1)!)).toBeUndefined();
    // The store answers a number of a task kept here as taken.
    expect(await beta.ledger.join([], [1, 99], 1)).toEqual({ uploaded: [], taken: [1] });
    // Alpha's later changes to its task 1 are not beta's either; its next task is both machines'.
    await alpha.shared.write((ledger) => ledger.edit(1, { title: 'alpha shop, renamed' }, undefined, NOW), 1);
    const [next] = await alpha.shared.write((ledger) => ledger.add(task('next'), [], NOW));
    await eventually(() => beta.tasks.get(next!.id) !== undefined, 'beta has the next task');
    expect(beta.tasks.get(1)).toMatchObject({ title: 'beta private', project_id: beta.local });
  });

  test('a task uploaded after this machine joined, under a number its own task of a repository with no remote holds, is not written over it', async () => {
    const url = await database();
    // Beta joins first, so the store does not know its task 1; alpha, offline until now, uploads its own task 1.
    const beta = await started(url, 'beta', (m) => localTask(m, m.local, 'beta private'));
    const alpha = await started(url, 'alpha', (m) => localTask(m, m.project, 'alpha shop'));
    expect(alpha.warnings).toEqual([]);
    await eventually(() => beta.warnings.includes(STAYS(1)), 'beta warns about task 1');
    expect(beta.tasks.get(1)).toMatchObject({ title: 'beta private', project_id: beta.local });
    // A clone of the repository registered on beta later reads the store's tasks, and still not over it.
    const clone = beta.sessions.ensureProject('/beta/shop-clone');
    await beta.shared.know(clone);
    expect(beta.tasks.get(1)).toMatchObject({ title: 'beta private', project_id: beta.local });
  });

  test('a task renamed while a machine was stopped is still the same task when it starts again', async () => {
    const url = await database();
    const alpha = await started(url, 'alpha');
    const beta = await started(url, 'beta');
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    await eventually(() => beta.tasks.get(a!.id) !== undefined, 'beta has the task');
    await beta.stop();
    await alpha.shared.write((ledger) => ledger.edit(a!.id, { title: 'renamed' }, undefined, NOW), a!.id);
    const again = await started(url, 'beta', undefined, { dir: beta.dir });
    expect(again.warnings).toEqual([]);
    expect(again.tasks.get(a!.id)?.title).toBe('renamed');
    expect(again.shared.sharedKey(again.tasks.get(a!.id)!)).toBe('git.example/team/shop');
    // Still shared: a change on either machine reaches the other.
    await again.shared.write((ledger) => ledger.move(a!.id, 'ready', 'hand', undefined, NOW), a!.id);
    await eventually(() => alpha.tasks.get(a!.id)?.board_column === 'ready', "alpha sees beta's move");
  });

  test("an uploaded dependency on a number another machine's task holds is left out of the store, and kept on this machine", async () => {
    const url = await database();
    const alpha = await started(url, 'alpha', (m) => localTask(m, m.project, 'alpha one'));
    const beta = await started(url, 'beta', (m) => {
      localTask(m, m.project, 'beta one', [], '2026-01-01T00:00:00.000Z');
      localTask(m, m.project, 'beta two, after beta one', [1]);
    });
    expect(beta.warnings).toEqual([STAYS(1)]);
    await eventually(() => alpha.tasks.get(2) !== undefined, "alpha has beta's task 2");
    expect(alpha.tasks.dependencies(2)).toEqual([]);
    expect(beta.tasks.dependencies(2)).toEqual([1]);
    // An edit of task 2 elsewhere keeps beta's edge to its own task 1.
    await alpha.shared.write((ledger) => ledger.edit(2, { title: 'two' }, undefined, NOW), 2);
    await eventually(() => beta.tasks.get(2)?.title === 'two', 'beta has the edit');
    expect(beta.tasks.dependencies(2)).toEqual([1]);
  });
});
