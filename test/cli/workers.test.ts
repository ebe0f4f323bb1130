/**
 * A workspace shared by two machines through one PostgreSQL: two supervisors with their own
 * BATON_HOME, each a worker, each seeing both in `baton workers`; one killed goes stale on the
 * other. And a store that cannot be joined fails `daemon start` and leaves no supervisor.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkersView } from '../../src/api/workers.js';
import { TestBaton } from '../support/baton.js';
import { postgresForFile } from '../support/postgres.js';
import { watchExit } from '../support/process.js';
import { pollUntil } from '../support/wait.js';

const server = postgresForFile();
const started: TestBaton[] = [];
afterEach(() => {
  for (const baton of started.splice(0)) baton.cleanup();
});

/** A Baton home of its own: one "machine". Heartbeats every 200 ms, so stale after 600 ms. */
function machine(env: NodeJS.ProcessEnv = {}): TestBaton {
  const baton = new TestBaton({ BATON_CLUSTER_HEARTBEAT_MS: '200', ...env });
  started.push(baton);
  return baton;
}

/** Polls `baton workers --json` until `check` holds: the other machine's heartbeats send us no event. */
async function workersUntil(
  baton: TestBaton,
  check: (view: WorkersView) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<WorkersView> {
  return pollUntil(() => baton.json<WorkersView>(['workers']), check, what, { timeoutMs, intervalMs: 100 });
}

describe('baton workers across two machines sharing a store', () => {
  it('shows both machines from each side, and one killed becomes stale on the other; a stopped one leaves', async () => {
    const url = await server().database();
    const alpha = machine({ BATON_MACHINE: 'alpha', NODE_DEBUG: 'esm,module' });
    const beta = machine({ BATON_STORE: url });
    await alpha.ok(['daemon', 'start', '--store', url]);
    await beta.ok(['daemon', 'start', '--machine', 'beta']);

    for (const [side, name] of [
      [alpha, 'alpha'],
      [beta, 'beta'],
    ] as const) {
      const view = await side.json<WorkersView>(['workers']);
      expect(view).toMatchObject({ clustered: true, machine: name, store: url });
      expect(view.workers.map((w) => [w.name, w.you, w.stale, w.free])).toEqual([
        ['alpha', name === 'alpha', false, w(view, 'alpha').capacity],
        ['beta', name === 'beta', false, w(view, 'beta').capacity],
      ]);
    }
    // Joining loads the PostgreSQL driver (the single-machine test below checks it does not otherwise).
    expect(readFileSync(join(alpha.home, 'supervisor.log'), 'utf8')).toMatch(/node_modules\/pg\//);
    const table = await alpha.ok(['workers']);
    expect(table).toMatch(/^NAME\s+CAPACITY\s+RUNNING\s+FREE\s+LAST HEARTBEAT\s+STATE$/m);
    expect(table).toMatch(/^alpha \*\s+\d+\s+0\s+\d+\s+\ds ago\s+live$/m);
    expect(table).toMatch(/^beta\s+\d+\s+0\s+\d+\s+\ds ago\s+live$/m);

    // Started again with the same store: the running one is it; with another machine name, it is not.
    expect(await alpha.ok(['daemon', 'start', '--store', url])).toMatch(/^Supervisor running/);
    const renamed = await alpha.run(['daemon', 'start', '--machine', 'gamma']);
    expect(renamed.code).toBe(4);
    expect(renamed.stderr).toContain('A supervisor is already running');
    expect(renamed.stderr).toContain('as machine alpha on the store');

    const betaPid = beta.supervisorPid();
    process.kill(betaPid, 'SIGKILL');
    await watchExit(betaPid);
    const stale = await workersUntil(alpha, (view) => w(view, 'beta').stale, 'beta is stale on alpha');
    expect(w(stale, 'alpha').stale).toBe(false);
    expect(await alpha.ok(['workers'])).toMatch(/^beta\s+.*\s+stale$/m);

    // A clean stop deregisters: the machine left on purpose, it did not fail.
    await alpha.ok(['daemon', 'stop']);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      expect(
        (await pool.query<{ name: string }>('SELECT name FROM workers ORDER BY name')).rows.map(
          (r) => r.name,
        ),
      ).toEqual(['beta']);
    } finally {
      await pool.end();
    }
  });

  it('a single machine is not clustered, says how to join, and never loads the PostgreSQL driver', async () => {
    const alone = machine({ BATON_MACHINE: 'solo', NODE_DEBUG: 'esm,module' });
    await alone.ok(['daemon', 'start']);
    expect(await alone.json<WorkersView>(['workers'])).toMatchObject({
      clustered: false,
      machine: 'solo',
      store: null,
      workers: [{ name: 'solo', you: true, stale: false }],
    });
    expect(await alone.ok(['workers'])).toBe(
      'Not clustered: this machine (solo) serves its workspace alone. To share one across machines: baton daemon start --store postgres://user@host/database\n',
    );
    // The supervisor's stderr is its log: Node's module debug lines name every module it loaded.
    const log = readFileSync(join(alone.home, 'supervisor.log'), 'utf8');
    // The supervisor starts from its bundle (decision 222): the cluster layer is a chunk of its own,
    // loaded only with a store; unbundled, the lazy loader is loaded and the layer's modules are not.
    if (log.includes('dist/bundle/supervisor.js')) expect(log).not.toMatch(/dist\/bundle\/cluster-[^/]*\.js/);
    else expect(log).toContain('dist/server/cluster.js');
    expect(log).not.toMatch(/node_modules\/(pg|pg-pool|pg-boss)\//);
    // Nor anything of the cluster layer (other machines' sessions in the radar and review included).
    expect(log).not.toMatch(/dist\/cluster\//);
  });
});

describe('daemon start with a store it cannot join', () => {
  it('fails naming where the URL came from, without the password, and leaves no supervisor', async () => {
    const port = await closedPort();
    const t = machine();
    const unreachable = await t.run([
      'daemon',
      'start',
      '--store',
      `postgres://baton:hunter2@127.0.0.1:${port}/baton`,
    ]);
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toMatch(
      new RegExp(
        `^baton: The supervisor could not start: Cannot reach the PostgreSQL store at 127\\.0\\.0\\.1:${port}/baton \\(.*\\); its URL came from --store\\. Check that the server is running and the URL, user and password are right\\. Its log: `,
      ),
    );
    expect(unreachable.stderr + readFileSync(join(t.home, 'supervisor.log'), 'utf8')).not.toContain(
      'hunter2',
    );
    expect((await t.run(['daemon', 'status'])).code).toBe(6);
    expect(t.processes()).toEqual([]);

    const fromEnv = await t.run(['daemon', 'start'], {
      env: { BATON_STORE: `postgres://baton@127.0.0.1:${port}/baton` },
    });
    expect(fromEnv.stderr).toContain('; its URL came from BATON_STORE.');
    expect(t.processes()).toEqual([]);

    // A URL that is not one is refused before any supervisor is started.
    const malformed = await t.run(['daemon', 'start', '--store', 'mysql://baton:hunter2@db/baton']);
    expect(malformed).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^baton: --store is not a PostgreSQL URL \(the scheme is mysql, not postgres\)/,
      ) as unknown,
    });
    expect(malformed.stderr).not.toContain('hunter2');
    const badName = await t.run(['daemon', 'start', '--machine', 'has space']);
    expect(badName).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--machine must be a machine name') as unknown,
    });
    expect(t.processes()).toEqual([]);
  });
});

function w(view: WorkersView, name: string): WorkersView['workers'][number] {
  const row = view.workers.find((worker) => worker.name === name);
  if (row === undefined) throw new Error(`no worker ${name} in ${JSON.stringify(view)}`);
  return row;
}

/** A port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
