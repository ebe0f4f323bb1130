/**
 * Machines sharing tasks through a test PostgreSQL, in-process (decision 147): each its own
 * SQLite with a `shop` project (a repository with a remote) and `local` (one without), its
 * `SharedTasks` on the store, and the store's network edge, which a test can take away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach } from 'vitest';
import { Listener, type Backoff } from '../../src/cluster/listener.js';
import { PgTasks, TASK_CHANNEL } from '../../src/cluster/tasks.js';
import { openDb } from '../../src/store/db.js';
import { SessionStore } from '../../src/store/sessions.js';
import { TaskStore } from '../../src/store/tasks.js';
import { SharedTasks } from '../../src/cluster/peers/tasks.js';
import type { Applied, LedgerNewTask } from '../../src/tasks/index.js';
import { clusterDatabases } from './cluster.js';
import { until } from './wait.js';

/** The repositories' identities as their remotes would give them: every machine's `shop` clone is one repository. */
export const REMOTES: Record<string, string> = {
  '/alpha/shop': 'git.example/team/shop',
  '/beta/shop': 'git.example/team/shop',
  '/gamma/shop-clone': 'git.example/team/shop',
  '/beta/shop-clone': 'git.example/team/shop',
};
export const NOW = '2026-11-24T06:00:00.000Z';

export interface Machine {
  name: string;
  /** Its SQLite's folder: a machine started again on it is this machine restarted. */
  dir: string;
  tasks: TaskStore;
  sessions: SessionStore;
  project: string;
  /** A project of a repository with no remote. */
  local: string;
  shared: SharedTasks;
  ledger: PgTasks;
  listener: Listener;
  applied: Applied[];
  warnings: string[];
  /** The store's network edge: while true, every connection is refused. */
  edge: { away: boolean };
  /** Stops it as a supervisor would (its SQLite folder stays). */
  stop: () => Promise<void>;
}

export interface MachineOptions {
  /** The SQLite folder of a machine stopped before: this is that machine restarted. */
  dir?: string;
  /** Its LISTEN connection's redial (default 20 ms doubling to 200 ms). */
  backoff?: Backoff;
}

export interface SharedTaskMachines {
  database: () => Promise<string>;
  /** Run after each test, last pushed first. */
  cleanups: (() => Promise<unknown>)[];
  /** A machine, not started. */
  machine: (url: string, name: string, options?: MachineOptions) => Machine;
  /** A machine started (its LISTEN, then its join), after `before` ran on its SQLite. */
  started: (
    url: string,
    name: string,
    before?: (m: Machine) => void,
    options?: MachineOptions,
  ) => Promise<Machine>;
}

export function sharedTaskMachines(): SharedTaskMachines {
  const { database, cleanups } = clusterDatabases();
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const machine = (url: string, name: string, options: MachineOptions = {}): Machine => {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), `baton-tasks-${name}-`));
    if (options.dir === undefined) dirs.push(dir);
    const db = openDb(join(dir, 'baton.db'));
    const sessions = new SessionStore(db);
    const project = sessions.ensureProject(`/${name}/shop`).id;
    const local = sessions.ensureProject(`/${name}/local`).id;
    const tasks = new TaskStore(db);
    const edge = { away: false };
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const refused = (): Promise<never> =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    // pg's own query connects through connect(callback): the arguments go through as given.
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(pool, {
      query: (...args: unknown[]) => (edge.away ? refused() : query(...args)),
      connect: (...args: unknown[]) => (edge.away ? refused() : connect(...args)),
    });
    const listener = new Listener(url, [TASK_CHANNEL], options.backoff ?? { firstMs: 20, maxMs: 200 });
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
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        shared.close();
        await listener.close();
        await pool.end();
        db.close();
      })());
    cleanups.push(stop);
    return {
      name,
      dir,
      tasks,
      sessions,
      project,
      local,
      shared,
      ledger,
      listener,
      applied,
      warnings,
      edge,
      stop,
    };
  };

  const started = async (
    url: string,
    name: string,
    before?: (m: Machine) => void,
    options?: MachineOptions,
  ): Promise<Machine> => {
    const m = machine(url, name, options);
    before?.(m);
    await m.listener.start();
    await m.shared.start();
    return m;
  };

  return { database, cleanups, machine, started };
}

export const task = (title: string, extra: Partial<LedgerNewTask> = {}): LedgerNewTask => ({
  repoKey: 'git.example/team/shop',
  title,
  description: '',
  scope_json: '[]',
  tracker: null,
  board_column: 'backlog',
  ...extra,
});

/** A task written straight into a machine's SQLite, as it was before the machine joined. */
export function localTask(
  m: Machine,
  projectId: string,
  title: string,
  after: number[] = [],
  createdAt = NOW,
  id?: number,
): number {
  return m.tasks.insert(
    {
      project_id: projectId,
      title,
      description: '',
      scope_json: '[]',
      tracker: null,
      board_column: 'backlog',
    },
    after,
    createdAt,
    id,
  );
}

export async function eventually(check: () => boolean, what: string): Promise<void> {
  await until(check, what, { intervalMs: 20 });
}
