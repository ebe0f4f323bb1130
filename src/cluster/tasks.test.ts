import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { openDb } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { TaskStore } from '../store/tasks.js';
import { SharedTasks, type Applied, type LedgerNewTask } from '../tasks/shared.js';
import { StoreUnreachableError } from './errors.js';
import { Listener } from './listener.js';
import { PgTasks, TASK_CHANNEL } from './tasks.js';

const { database, cleanups } = clusterDatabases();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The repositories' identities as their remotes would give them: every machine's `shop` clone is one repository. */
const REMOTES: Record<string, string> = { '/alpha/shop': 'git.example/team/shop', '/beta/shop': 'git.example/team/shop', '/gamma/shop-clone': 'git.example/team/shop' };
const NOW = '2026-11-24T06:00:00.000Z';

interface Machine {
  name: string;
  tasks: TaskStore;
  sessions: SessionStore;
  project: string;
  shared: SharedTasks;
  ledger: PgTasks;
  listener: Listener;
  applied: Applied[];
  warnings: string[];
  /** The store's network edge: while true, every connection is refused. */
  edge: { away: boolean };
}

/** A machine's SQLite with a `shop` project (and `local`, a repository with no remote), and its shared tasks on the store at `url`. */
function machine(url: string, name: string): Machine {
  const dir = mkdtempSync(join(tmpdir(), `baton-tasks-${name}-`));
  dirs.push(dir);
  const db = openDb(join(dir, 'baton.db'));
  const sessions = new SessionStore(db);
  const project = sessions.ensureProject(`/${name}/shop`).id;
  sessions.ensureProject(`/${name}/local`);
  const tasks = new TaskStore(db);
  const edge = { away: false };
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const refused = (): Promise<never> => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  // pg's own query connects through connect(callback): the arguments go through as given.
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  Object.assign(pool, { query: (...args: unknown[]) => (edge.away ? refused() : query(...args)), connect: (...args: unknown[]) => (edge.away ? refused() : connect(...args)) });
  const listener = new Listener(url, [TASK_CHANNEL], { firstMs: 20, maxMs: 200 });
  const ledger = new PgTasks(pool, listener, name, 'the test store');
  const applied: Applied[] = [];
  const warnings: string[] = [];
  const shared = new SharedTasks({
    ledger,
    tasks,
    sessions,
    machine: name,
    keyOf: async (root) => REMOTES[root],
    onApplied: (a) => applied.push(a),
    logger: { warn: (message) => warnings.push(message) },
    retry: { firstMs: 20, maxMs: 100 },
  });
  cleanups.push(
    async () => db.close(),
    () => pool.end(),
    () => listener.close(),
    async () => shared.close(),
  );
  return { name, tasks, sessions, project, shared, ledger, listener, applied, warnings, edge };
}

async function started(url: string, name: string, before?: (m: Machine) => void): Promise<Machine> {
  const m = machine(url, name);
  before?.(m);
  await m.listener.start();
  await m.shared.start();
  return m;
}

const task = (title: string, extra: Partial<LedgerNewTask> = {}): LedgerNewTask => ({ repoKey: 'git.example/team/shop', title, description: '', scope_json: '[]', tracker: null, board_column: 'backlog', ...extra });

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('tasks shared through the store', () => {
  test("numbers come from one sequence: a shared task and a machine's own task never take the same one", async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [first] = await alpha.shared.write((ledger) => ledger.add(task('first'), [], NOW));
    expect(first).toMatchObject({ id: 1, machine: 'alpha', removed: false });
    expect(alpha.tasks.get(1)).toMatchObject({ title: 'first', project_id: alpha.project, board_column: 'backlog', rank: 0 });
    // Beta's task of a repository with no remote stays beta's, numbered from the sequence.
    const own = await beta.shared.nextId();
    expect(own).toBe(2);
    const [second] = await beta.shared.write((ledger) => ledger.add(task('second'), [], NOW));
    expect(second?.id).toBe(3);
    await eventually(() => alpha.tasks.get(3) !== undefined && beta.tasks.get(1) !== undefined, 'each has the other one');
    expect(beta.tasks.get(1)).toMatchObject({ title: 'first', project_id: beta.project });
    expect(alpha.applied.flatMap((a) => [...a.changed.values()].flat())).toEqual([3]);
    expect(alpha.applied[0]!.changed.has('shop')).toBe(true);
  });

  test("a joining machine uploads its tasks under their numbers; a number another task took stays this machine's own, with a warning", async () => {
    const url = await database();
    const alpha = await started(url, 'alpha', (m) => {
      m.tasks.insert({ project_id: m.project, title: 'one', description: '', scope_json: '[]', tracker: null, board_column: 'backlog' }, [], NOW);
      m.tasks.insert({ project_id: m.project, title: 'two', description: '', scope_json: '[]', tracker: null, board_column: 'backlog' }, [1], NOW);
    });
    const beta = await started(url, 'beta', (m) => {
      m.tasks.insert({ project_id: m.project, title: "beta's one", description: '', scope_json: '[]', tracker: null, board_column: 'backlog' }, [], '2026-11-23T00:00:00.000Z');
      m.tasks.insert({ project_id: m.project, title: 'pad', description: '', scope_json: '[]', tracker: null, board_column: 'backlog' }, [], NOW, 5);
    });
    expect(beta.warnings).toEqual(["task 1 stays on this machine only: another machine's task has its number in the shared store"]);
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

  test("edits, moves, dependencies and removals reach the other machine; a landing there releases what waits for it here", async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const [a] = await alpha.shared.write((ledger) => ledger.add(task('a'), [], NOW));
    const [b] = await alpha.shared.write((ledger) => ledger.add(task('b'), [a!.id], NOW));
    const [c] = await alpha.shared.write((ledger) => ledger.add(task('c'), [], NOW));
    await eventually(() => beta.tasks.dependencies(b!.id).length === 1, "beta has b's dependency");
    await beta.shared.write((ledger) => ledger.move(c!.id, 'backlog', 'hand', 0, NOW));
    await beta.shared.write((ledger) => ledger.edit(a!.id, { title: 'a, renamed' }, undefined, NOW));
    await eventually(() => alpha.tasks.get(a!.id)?.title === 'a, renamed', 'alpha has the edit');
    expect(alpha.tasks.list(alpha.project).map((t) => [t.id, t.rank])).toEqual([[c!.id, 0], [a!.id, 1], [b!.id, 2]]);
    expect(beta.tasks.list(beta.project).map((t) => [t.id, t.rank])).toEqual([[c!.id, 0], [a!.id, 1], [b!.id, 2]]);

    // Landed on alpha (the watch's write, applied there already): beta is told to release b.
    await alpha.shared.queue('landed', (ledger) => ledger.setMerged(a!.id, 'abc123', NOW));
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
    void alpha.shared.queue('move a', (ledger) => ledger.move(a!.id, 'done', 'merge', undefined, NOW));
    await eventually(() => alpha.warnings.some((w) => w.includes('trying again')), 'the write is retried');
    alpha.edge.away = false;
    await eventually(() => beta.tasks.get(a!.id)?.board_column === 'done', 'beta sees the move made during the outage');
  });

  test("a LISTEN connection that comes back reads what changed while it was away", async () => {
    const url = await database();
    const [alpha, beta] = [await started(url, 'alpha'), await started(url, 'beta')];
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    cleanups.push(() => admin.end());
    const reconnected = new Promise<void>((resolve) => beta.listener.once('connected', () => resolve()));
    await admin.query('SELECT pg_terminate_backend($1)', [await beta.listener.backendPid()]);
    await alpha.shared.write((ledger) => ledger.add(task('while beta was away'), [], NOW));
    await reconnected;
    await eventually(() => beta.tasks.list().some((t) => t.title === 'while beta was away'), 'beta read it after reconnecting');
  });
});
