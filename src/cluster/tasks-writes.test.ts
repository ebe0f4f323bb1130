/** Writes of shared tasks that must not go astray (decision 147): removals, writes before the join, queued automatic writes. */
import { describe, expect, test } from 'vitest';
import { NOW, eventually, localTask, sharedTaskMachines, task } from '../../test/support/shared-tasks.js';
import {
  DependencyCycleError,
  SharedTasksNotJoinedError,
  TaskAwaitedError,
  TaskNotFoundError,
} from '../tasks/errors.js';

const { database, machine, started } = sharedTaskMachines();
const LATER = '2026-11-24T06:05:00.000Z';

describe('writes of shared tasks', () => {
  test('a task a live task waits for is not removed in the store; one only landed tasks waited for goes everywhere', async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    const [b] = await alpha.shared.write((ledger) => ledger.add(task('b'), [a!.id], NOW));
    await expect(alpha.shared.write((ledger) => ledger.remove(a!.id, NOW), a!.id)).rejects.toBeInstanceOf(
      TaskAwaitedError,
    );
    expect(alpha.tasks.get(a!.id)).toBeDefined();

    await alpha.shared.write((ledger) => ledger.setMerged(b!.id, 'c0ffee', NOW), b!.id);
    await eventually(() => beta.tasks.get(b!.id)?.merged_commit === 'c0ffee', 'beta has b landed');
    await alpha.shared.write((ledger) => ledger.remove(a!.id, NOW), a!.id);
    expect(alpha.tasks.get(a!.id)).toBeUndefined();
    await eventually(() => beta.tasks.get(a!.id) === undefined, 'beta removed a');
    expect(beta.tasks.dependencies(b!.id)).toEqual([]);
    expect((await beta.ledger.ofRepository('git.example/team/shop')).map((t) => [t.id, t.after])).toEqual([
      [b!.id, []],
    ]);
    expect([...alpha.warnings, ...beta.warnings]).toEqual([]);
    // Both machines go on editing b.
    await beta.shared.write((ledger) => ledger.edit(b!.id, { title: 'b2' }, undefined, NOW), b!.id);
    await eventually(() => alpha.tasks.get(b!.id)?.title === 'b2', 'alpha has the edit');
  });

  test('two machines making two tasks wait for each other at once: the store refuses the second, naming the cycle', async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    const [b] = await alpha.shared.write((ledger) => ledger.add(task('b'), [], NOW));
    await eventually(() => beta.tasks.get(b!.id) !== undefined, 'beta has both');
    // Each machine's SQLite saw no edge yet: only the store, under its lock, sees both.
    await alpha.shared.write((ledger) => ledger.edit(b!.id, {}, [a!.id], NOW), b!.id);
    const second = beta.shared.write((ledger) => ledger.edit(a!.id, { title: 'a2' }, [b!.id], NOW), a!.id);
    await expect(second).rejects.toBeInstanceOf(DependencyCycleError);
    await expect(second).rejects.toThrow(`task ${a!.id} → task ${b!.id} → task ${a!.id}`);
    expect(
      (await beta.ledger.ofRepository('git.example/team/shop')).map((t) => [t.id, t.title, t.after]),
    ).toEqual([
      [a!.id, 'a', []],
      [b!.id, 'b', [a!.id]],
    ]);
  });

  test('a write before the join answers that the store was not joined; a write of a task the store lacks answers not found', async () => {
    const url = await database();
    const alpha = machine(url, 'alpha');
    localTask(alpha, alpha.project, 'pre');
    await alpha.listener.start();
    alpha.edge.away = true;
    await expect(alpha.shared.start()).rejects.toThrow(/the test store/);
    alpha.edge.away = false;
    const early = alpha.shared.write((ledger) => ledger.edit(1, { title: 'edited' }, undefined, NOW), 1);
    await expect(early).rejects.toBeInstanceOf(SharedTasksNotJoinedError);
    await expect(early).rejects.toMatchObject({ code: 'store_unreachable' });
    await expect(alpha.shared.nextId()).rejects.toBeInstanceOf(SharedTasksNotJoinedError);

    await alpha.shared.start();
    await alpha.shared.write((ledger) => ledger.remove(1, NOW), 1);
    for (const write of [
      (id: number) => alpha.shared.write((ledger) => ledger.edit(id, { title: 'x' }, undefined, NOW), id),
      (id: number) => alpha.shared.write((ledger) => ledger.remove(id, NOW), id),
    ]) {
      await expect(write(1)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(write(99)).rejects.toThrow(/No task 99/);
    }
  });

  test("a session's move queued during an outage does not undo a later move by hand on another machine", async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    await eventually(() => beta.tasks.get(a!.id) !== undefined, 'beta has the task');
    alpha.edge.away = true;
    alpha.tasks.move(a!.id, 'review', 'session', undefined, NOW);
    void alpha.shared.queue({ kind: 'move', taskId: a!.id, column: 'review', setBy: 'session', at: NOW });
    await eventually(() => alpha.warnings.some((w) => w.includes('trying again')), 'the move waits');
    await beta.shared.write((ledger) => ledger.move(a!.id, 'done', 'hand', undefined, LATER), a!.id);
    alpha.edge.away = false;
    await eventually(() => alpha.tasks.outbox.count() === 0, 'the queued move was sent');
    await eventually(() => alpha.tasks.get(a!.id)?.board_column === 'done', "alpha takes beta's move");
    expect(beta.tasks.get(a!.id)).toMatchObject({ board_column: 'done', column_set_by: 'hand' });
  });

  test('a landing queued during an outage survives a restart: sent when the store is back, never undone by the catch-up', async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    await eventually(() => beta.tasks.get(a!.id) !== undefined, 'beta has the task');
    alpha.edge.away = true;
    alpha.tasks.setMerged(a!.id, 'c0ffee', LATER);
    alpha.tasks.move(a!.id, 'done', 'merge', undefined, LATER);
    void alpha.shared.queue({ kind: 'merged', taskId: a!.id, commit: 'c0ffee', at: LATER });
    void alpha.shared.queue({ kind: 'move', taskId: a!.id, column: 'done', setBy: 'merge', at: LATER });
    await eventually(() => alpha.warnings.some((w) => w.includes('trying again')), 'the landing waits');
    await alpha.stop();

    const again = await started(url, 'alpha', undefined, { dir: alpha.dir });
    expect(again.tasks.outbox.count()).toBe(0);
    expect(again.tasks.get(a!.id)).toMatchObject({
      merged_commit: 'c0ffee',
      board_column: 'done',
      column_set_by: 'merge',
    });
    // Two writes, the landing and the move: beta may read one before the other.
    await eventually(
      () =>
        beta.tasks.get(a!.id)?.merged_commit === 'c0ffee' && beta.tasks.get(a!.id)?.board_column === 'done',
      'beta hears a landed and done',
    );
    expect(beta.tasks.get(a!.id)?.column_set_by).toBe('merge');
  });
});
