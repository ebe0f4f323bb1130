// Tasks machines share (decision 147), part of `node bench/run.mjs cluster`
// (`BATON_BENCH_CLUSTER_ONLY=tasks` for these alone):
//
// - A hand add on a shared repository (the store's transaction, then the rows in SQLite) against
//   the same add on this machine's SQLite alone.
// - A task added on alpha → in beta's SQLite (what beta's `task ls`, board and gate read).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const RUNS = Number(process.env.BATON_BENCH_TASKS ?? 200);

const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(2)} ms`;
const figure = (xs) => `p50 ${ms(pct(xs, 0.5))}, p95 ${ms(pct(xs, 0.95))}`;
const KEY = 'example.test/team/app';
const fields = (title) => ({
  title,
  description: '',
  scope_json: '[]',
  tracker: null,
  board_column: 'backlog',
});

export async function tasksFigures(cluster, url, root) {
  const load = async (path) => import(pathToFileURL(join(root, 'dist', ...path.split('/'))).href);
  const { openDb } = await load('store/db.js');
  const { SessionStore } = await load('store/sessions.js');
  const { TaskStore } = await load('store/tasks.js');
  const { SharedTasks } = await load('cluster/peers/tasks.js');
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-tasks-'));
  const closers = [];
  try {
    const machine = async (name) => {
      const db = openDb(join(dir, `${name}.db`));
      const sessions = new SessionStore(db);
      const project = sessions.ensureProject(`/${name}/app`);
      const tasks = new TaskStore(db);
      const pool = new pg.Pool({ connectionString: url, max: 3 });
      const listener = new cluster.Listener(url, [cluster.TASK_CHANNEL]);
      await listener.start();
      const applied = [];
      const shared = new SharedTasks({
        ledger: new cluster.PgTasks(pool, listener, name),
        tasks,
        sessions,
        machine: name,
        keyOf: async () => KEY,
        onApplied: (a) => applied.forEach((f) => f(a)),
        logger: { warn: () => {} },
      });
      await shared.start();
      closers.push(async () => (shared.close(), await listener.close(), await pool.end(), db.close()));
      return { tasks, project, shared, applied };
    };
    const [alpha, beta] = [await machine('bench-alpha'), await machine('bench-beta')];

    const local = [];
    for (let i = 0; i < RUNS; i++) {
      const t = now();
      alpha.tasks.insert(
        { project_id: alpha.project.id, ...fields(`local ${i}`) },
        [],
        new Date().toISOString(),
      );
      local.push(now() - t);
    }
    const hand = [];
    const reached = [];
    for (let i = 0; i < RUNS; i++) {
      let id;
      const there = new Promise((resolve) => {
        const heard = (a) => {
          if (id !== undefined && beta.tasks.get(id) !== undefined)
            resolve(beta.applied.splice(beta.applied.indexOf(heard), 1));
        };
        beta.applied.push(heard);
      });
      const t = now();
      [{ id }] = await alpha.shared.write((ledger) =>
        ledger.add({ repoKey: KEY, ...fields(`shared ${i}`) }, [], new Date().toISOString()),
      );
      hand.push(now() - t);
      if (beta.tasks.get(id) === undefined) await there;
      else beta.applied.splice(0);
      reached.push(now() - t);
    }
    console.log(
      `task add (${RUNS}): SQLite alone ${figure(local)}; shared repository, store then SQLite ${figure(hand)}`,
    );
    console.log(
      `task added on alpha → in beta's SQLite (${RUNS}): ${figure(reached)}; first 20: ${figure(reached.slice(0, 20))}`,
    );
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
