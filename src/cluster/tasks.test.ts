import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { NOW, eventually, sharedTaskMachines, task } from '../../test/support/shared-tasks.js';
import { StoreUnreachableError } from './errors.js';

const { database, cleanups, started } = sharedTaskMachines();

describe('tasks shared through the store', () => {
  test("numbers come from one sequence: a shared task and a machine's own task never take the same one", async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [first] = await alpha.shared.write((ledger) => ledger.add(task('first'), [], NOW));
    expect(first).toMatchObject({ id: 1, machine: 'alpha', removed: false });
    expect(alpha.tasks.get(1)).toMatchObject({
      title: 'first',
      project_id: alpha.project,
      board_column: 'backlog',
      rank: 0,
    });
    // Beta's task of a repository with no remote stays beta's, numbered from the sequence.
    const own = await beta.shared.nextId();
    expect(own).toBe(2);
    const [second] = await beta.shared.write((ledger) => ledger.add(task('second'), [], NOW));
    expect(second?.id).toBe(3);
    await eventually(
      () => alpha.tasks.get(3) !== undefined && beta.tasks.get(1) !== undefined,
      'each has the other one',
    );
    expect(beta.tasks.get(1)).toMatchObject({ title: 'first', project_id: beta.project });
    expect(alpha.applied.flatMap((a) => [...a.changed.values()].flat())).toEqual([3]);
    expect(alpha.applied[0]!.changed.has('shop')).toBe(true);
  });

  test("a joining machine uploads its tasks under their numbers; a number another task took stays this machine's own, with a warning", async () => {
    const url = await database();
    const alpha = await started(url, 'alpha', (m) => {
      m.tasks.insert(
        {
          project_id: m.project,
          title: 'one',
          description: '',
          scope_json: '[]',
          tracker: null,
          board_column: 'backlog',
        },
        [],
        NOW,
      );
      m.tasks.insert(
        {
          project_id: m.project,
          title: 'two',
          description: '',
          scope_json: '[]',
          tracker: null,
          board_column: 'backlog',
        },
        [1],
        NOW,
      );
    });
    const beta = await started(url, 'beta', (m) => {
      m.tasks.insert(
        {
          project_id: m.project,
          title: "beta's one",
          description: '',
          scope_json: '[]',
          tracker: null,
          board_column: 'backlog',
        },
        [],
        '2026-11-23T00:00:00.000Z',
      );
      m.tasks.insert(
        {
          project_id: m.project,
          title: 'pad',
          description: '',
          scope_json: '[]',
          tracker: null,
          board_column: 'backlog',
        },
        [],
        NOW,
        5,
      );
    });
    expect(beta.warnings).toEqual([
      "task 1 stays on this machine only: another machine's task has its number in the shared store",
    ]);
    // Beta keeps its own task 1 and takes alpha's 2 (with its dependency on alpha's 1 dropped here: beta has another 1).
    expect(beta.tasks.get(1)?.title).toBe("beta's one");
    expect(beta.tasks.get(2)?.title).toBe('two');
    expect(beta.tasks.dependencies(2)).toEqual([]);
    await eventually(() => alpha.tasks.get(5) !== undefined, "alpha has beta's task 5");
    expect(alpha.tasks.dependencies(2)).toEqual([1]);
    // The sequence moved past every machine's numbers.
    expect((await alpha.shared.write((ledger) => ledger.add(task('next'), [], NOW)))[0]?.id).toBe(6);
    // Beta's task 1 stays beta's: its moves are not the store's.
    expect(beta.shared.sharedKey(beta.tasks.get(1)!)).toBeUndefined();
    expect(beta.shared.sharedKey(beta.tasks.get(5)!)).toBe('git.example/team/shop');
  });

  test('edits, moves, dependencies and removals reach the other machine; a landing there releases what waits for it here', async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    const [b] = await alpha.shared.write((ledger) => ledger.add(task('b'), [a!.id], NOW));
    const [c] = await alpha.shared.write((ledger) => ledger.add(task('c'), [], NOW));
    await eventually(() => beta.tasks.dependencies(b!.id).length === 1, "beta has b's dependency");
    await beta.shared.write((ledger) => ledger.move(c!.id, 'backlog', 'hand', 0, NOW));
    await beta.shared.write((ledger) => ledger.edit(a!.id, { title: 'a, renamed' }, undefined, NOW));
    await eventually(() => alpha.tasks.get(a!.id)?.title === 'a, renamed', 'alpha has the edit');
    expect(alpha.tasks.list(alpha.project).map((t) => [t.id, t.rank])).toEqual([
      [c!.id, 0],
      [a!.id, 1],
      [b!.id, 2],
    ]);
    expect(beta.tasks.list(beta.project).map((t) => [t.id, t.rank])).toEqual([
      [c!.id, 0],
      [a!.id, 1],
      [b!.id, 2],
    ]);

    // Landed on alpha (the watch's write, applied there already): beta is told to release b.
    await alpha.shared.queue({ kind: 'merged', taskId: a!.id, commit: 'abc123', at: NOW });
    await eventually(() => beta.applied.some((x) => x.merged.includes(a!.id)), 'beta hears a landed');
    expect(beta.tasks.get(a!.id)?.merged_commit).toBe('abc123');

    await beta.shared.write((ledger) => ledger.remove(c!.id, NOW));
    expect(beta.tasks.get(c!.id)).toBeUndefined();
    await eventually(() => alpha.tasks.get(c!.id) === undefined, 'alpha removed c');
    expect(alpha.applied.at(-1)?.removed.get('shop')).toEqual([c!.id]);
  });

  test('a machine with no project of the repository takes none of its tasks, and reads them all when one shows', async () => {
    const url = await database();
    const [alpha, gamma] = [await started(url, 'alpha'), await started(url, 'gamma')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    const [b] = await alpha.shared.write((ledger) => ledger.add(task('b'), [a!.id], NOW));
    await gamma.shared.catchUp();
    expect(gamma.tasks.list()).toEqual([]);
    const clone = gamma.sessions.ensureProject('/gamma/shop-clone');
    expect(await gamma.shared.know(clone)).toBe('git.example/team/shop');
    expect(gamma.tasks.list(clone.id).map((t) => t.title)).toEqual(['a', 'b']);
    expect(gamma.tasks.dependencies(b!.id)).toEqual([a!.id]);
    // From now on its changes arrive as any other.
    await alpha.shared.write((ledger) => ledger.edit(a!.id, { title: 'a2' }, undefined, NOW));
    await eventually(() => gamma.tasks.get(a!.id)?.title === 'a2', 'gamma has the edit');
  });

  test('with the store away a hand write fails naming it and changes nothing; an automatic one waits and goes when it is back', async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    alpha.edge.away = true;
    const refused = alpha.shared.write((ledger) => ledger.add(task('lost?'), [], NOW));
    await expect(refused).rejects.toBeInstanceOf(StoreUnreachableError);
    await expect(refused).rejects.toThrow(/the test store/);
    expect(alpha.tasks.list().map((t) => t.title)).toEqual(['a']);
    void alpha.shared.queue({ kind: 'move', taskId: a!.id, column: 'done', setBy: 'merge', at: NOW });
    await eventually(() => alpha.warnings.some((w) => w.includes('trying again')), 'the write is retried');
    alpha.edge.away = false;
    await eventually(
      () => beta.tasks.get(a!.id)?.board_column === 'done',
      'beta sees the move made during the outage',
    );
  });

  test('a LISTEN connection that comes back reads what was written while it was away', async () => {
    const url = await database();
    const alpha = await started(url, 'alpha');
    // Redialled after 400 ms: long enough for alpha's write to land while beta is away.
    const beta = await started(url, 'beta', undefined, { backoff: { firstMs: 400, maxMs: 400 } });
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    cleanups.push(() => admin.end());
    const reconnected = new Promise<void>((resolve) => beta.listener.once('connected', () => resolve()));
    await admin.query('SELECT pg_terminate_backend($1)', [await beta.listener.backendPid()]);
    await eventually(() => !beta.listener.connected, 'beta lost its LISTEN connection');
    const [written] = await alpha.shared.write((ledger) => ledger.add(task('while beta was away'), [], NOW));
    expect(beta.listener.connected).toBe(false);
    expect(beta.tasks.get(written!.id)).toBeUndefined();
    await reconnected;
    await eventually(
      () => beta.tasks.get(written!.id)?.title === 'while beta was away',
      'beta read it after reconnecting',
    );
  });
});
