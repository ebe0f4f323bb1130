/**
 * The cluster tests' shared setup. `clusterDatabases()`: a migrated database of this file's test
 * PostgreSQL per call, and cleanups (pools, listeners, claimers) run in reverse after each test.
 * `clusterMachines()`: supervisors started as machines of a shared workspace, each with its own
 * BATON_HOME, 200 ms heartbeats (stale after 600 ms), stopped by pid after each test.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach } from 'vitest';
import { migrate } from '../../src/cluster/schema.js';
import type { SessionView } from '../../src/api/index.js';
import { TestBaton } from './baton.js';
import { configure } from './landing.js';
import { postgresForFile, type TestPostgres } from './postgres.js';
import type { RelayedWorkspaceEvent } from '../../src/events/workspace-relayed.js';
import { Coalesced } from '../../src/shared/coalesce.js';
import { EventRecorder, pollUntil, waitForEvent } from './wait.js';

export interface ClusterDatabases {
  /** A fresh, migrated database; its URL. */
  database: () => Promise<string>;
  /** Run in reverse after each test. */
  cleanups: (() => Promise<unknown>)[];
  /** This file's test PostgreSQL (its superuser URL, for tests that act as an administrator). */
  server: () => TestPostgres;
}

export function clusterDatabases(): ClusterDatabases {
  const server = postgresForFile();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    server,
    database: async () => {
      const url = await server().database();
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      await migrate(pool);
      await pool.end();
      return url;
    },
  };
}

export interface ClusterMachines {
  /** A fresh database of this file's test PostgreSQL (the supervisors migrate it as they join). */
  database: () => Promise<string>;
  /** A supervisor started as machine `name` on the store at `url` (none: not clustered). */
  machine: (name: string, url: string | undefined, env?: NodeJS.ProcessEnv) => Promise<TestBaton>;
}

export function clusterMachines(): ClusterMachines {
  const server = postgresForFile();
  const started: TestBaton[] = [];
  afterEach(() => {
    for (const baton of started.splice(0)) baton.cleanup();
  });
  return {
    database: () => server().database(),
    machine: async (name, url, env = {}) => {
      const baton = new TestBaton({
        ...(url === undefined ? {} : { BATON_STORE: url }),
        BATON_MACHINE: name,
        BATON_CLUSTER_HEARTBEAT_MS: '200',
        ...env,
      });
      started.push(baton);
      await baton.ok(['daemon', 'start']);
      return baton;
    },
  };
}

/**
 * Waits until the session named `name`, as `side` lists it (`baton ls`), matches `check`. It is
 * read once, then again at each workspace event on `side`'s stream — its own, and in a shared
 * workspace the other machines' relayed ones, where a session's state change there arrives — so
 * the wait ends when the news does. A burst of events is one more read, not one each (Coalesced).
 * A view that changes with no event of its own on this stream (another machine's row written
 * after its event) is read again on a slow beat, a safety net rather than the wait's clock.
 */
export async function sessionUntil(
  side: TestBaton,
  name: string,
  check: (s: SessionView) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<SessionView> {
  const api = side.client();
  const controller = new AbortController();
  let last: SessionView | { error: unknown } | undefined;
  let matched = (_view: SessionView): void => undefined;
  const found = new Promise<SessionView>((resolve) => (matched = resolve));
  const read = new Coalesced(async () => {
    if (controller.signal.aborted) return;
    try {
      const { sessions } = await api.call('GET /api/sessions', {});
      const view = sessions.find((s) => s.name === name);
      last = view;
      if (view !== undefined && check(view)) matched(view);
    } catch (error) {
      // A supervisor restarting or a machine leaving: the next event or beat reads again.
      last = { error };
    }
  });
  const again = (): void => void read.request();
  const following = api.followWorkspace(0, again, controller.signal, again).catch(() => undefined);
  const beat = setInterval(again, SESSION_RECHECK_MS);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const seen =
        last === undefined
          ? 'no such session'
          : 'error' in last
            ? `last error: ${last.error instanceof Error ? last.error.message : String(last.error)}`
            : `last: ${JSON.stringify(last)}`;
      reject(new Error(`timed out after ${timeoutMs} ms waiting until ${what}; ${seen}`));
    }, timeoutMs);
  });
  again();
  try {
    return await Promise.race([found, timedOut]);
  } finally {
    clearTimeout(timer);
    clearInterval(beat);
    controller.abort();
    await following;
  }
}

/** sessionUntil's safety net: how often a view is read again when no event has come. */
const SESSION_RECHECK_MS = 1_000;

/** The scripted agent running `steps`, as `dispatch` arguments. */
export const scripted = (side: TestBaton, steps: unknown[]): string[] => [
  '--agent',
  'scripted',
  '--script',
  side.script(steps),
];

/** The state of the placement that started `sessionId` (its machine's local id), or undefined when none did. */
export async function placementState(url: string, sessionId: string): Promise<string | undefined> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await pool.query<{ state: string }>(
      'SELECT p.state FROM placements p JOIN cluster_dispatches d ON d.placement_id = p.session_id WHERE d.session_id = $1',
      [sessionId],
    );
    return rows[0]?.state;
  } finally {
    await pool.end();
  }
}

/** Polls the store until the placement that started `sessionId` is in `state`. */
export async function placementUntil(
  url: string,
  sessionId: string,
  state: string,
  timeoutMs = 10_000,
): Promise<void> {
  await pollUntil(
    () => placementState(url, sessionId),
    (now) => now === state,
    `the placement of ${sessionId} is ${state}`,
    { timeoutMs, intervalMs: 100 },
  );
}

/** A repository on `side` whose `origin` is a bare repository holding its main branch (with `config` as its `.baton/config.json`). */
export function sharedRepo(side: TestBaton, config?: unknown): { repo: string; remote: string } {
  const remote = join(side.root, 'remote.git');
  execFileSync('git', ['init', '--quiet', '--bare', remote], { env: side.env });
  const repo = side.repo('shop');
  if (config !== undefined) configure(side, repo, config);
  side.git(repo, 'remote', 'add', 'origin', remote);
  side.git(repo, 'push', '--quiet', 'origin', 'main');
  return { repo, remote };
}

/** Alpha's repository pushed to a bare remote (`sharedRepo`), and beta's clone of that remote. */
export function sharedClones(alpha: TestBaton, beta: TestBaton): { here: string; there: string } {
  const { repo: here, remote } = sharedRepo(alpha);
  const there = join(beta.root, 'shop-clone');
  execFileSync('git', ['clone', '--quiet', remote, there], { env: beta.env });
  return { here, there };
}

/** Another machine's news comes through the shared log: a wait for it allows this long, read this often. */
export const ACROSS_MACHINES = { timeoutMs: 20_000, intervalMs: 100 };

/**
 * The first of the other machines' workspace events (replayed or live) on `side`'s stream that
 * matches: the relayed bus tells the moment, so a test waits on it rather than polling `baton events`.
 */
export async function relayedEvent(
  side: TestBaton,
  match: (event: RelayedWorkspaceEvent) => boolean,
  timeoutMs = ACROSS_MACHINES.timeoutMs,
): Promise<RelayedWorkspaceEvent> {
  const relayed = new EventRecorder<RelayedWorkspaceEvent>();
  const controller = new AbortController();
  const following = side
    .client()
    .followWorkspace(0, () => undefined, controller.signal, relayed.emit)
    .catch(() => undefined);
  try {
    return await waitForEvent(relayed, match, timeoutMs);
  } finally {
    controller.abort();
    await following;
  }
}
