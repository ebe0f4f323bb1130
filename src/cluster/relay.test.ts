import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { until } from '../../test/support/wait.js';
import { isRelayed, WorkspaceBus } from '../bus/index.js';
import { SessionPinned } from '../events/workspace.js';
import { openDb, type Db } from '../store/db.js';
import { BUS_CHANNEL, PgWorkspaceLog } from './bus.js';
import { Listener } from './listener.js';
import { OUT_CURSOR, WorkspaceRelay, type RelayOptions } from './relay.js';

const { database, cleanups } = clusterDatabases();

interface Machine {
  name: string;
  db: Db;
  bus: WorkspaceBus;
  pool: pg.Pool;
  warnings: string[];
  /** A relay for this machine (started); a machine may start another after closing one. */
  relay: (options?: Partial<RelayOptions>) => Promise<WorkspaceRelay>;
}

/** One machine: its own SQLite store and bus, pool and LISTEN connection. */
function machine(url: string, name: string): Machine {
  const dir = mkdtempSync(join(tmpdir(), 'baton-relay-'));
  const db = openDb(join(dir, 'baton.db'));
  const bus = new WorkspaceBus(db);
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const listener = new Listener(url, [BUS_CHANNEL], { firstMs: 20, maxMs: 200 });
  const log = new PgWorkspaceLog(pool, listener);
  const warnings: string[] = [];
  cleanups.push(
    async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
    () => pool.end(),
    () => listener.close(),
  );
  const relay = async (options: Partial<RelayOptions> = {}): Promise<WorkspaceRelay> => {
    const started = new WorkspaceRelay({
      log,
      machine: name,
      bus,
      retry: { firstMs: 20, maxMs: 100 },
      logger: { warn: (msg) => warnings.push(msg) },
      ...options,
    });
    cleanups.push(() => started.close());
    await started.start();
    return started;
  };
  return { name, db, bus, pool, warnings, relay };
}

const pin = (m: Machine, name: string): number =>
  m.bus.publish(SessionPinned, { sessionId: `${m.name}-${name}`, name, project: 'repo', pinned: true }).seq;

/** The other machines' events stored on `m`: `machine:name` in its seq order. */
const relayedOn = (m: Machine): string[] =>
  m.bus
    .listAll()
    .filter(isRelayed)
    .map((e) => `${e.machine}:${(e.data as { name: string }).name}`);

const eventually = async (check: () => boolean | Promise<boolean>, what: string): Promise<void> => {
  await until(check, what, { intervalMs: 10 });
};

async function loggedCount(pool: pg.Pool, machineName: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM workspace_events WHERE type = 'cluster.relayed' AND data->>'machine' = $1`,
    [machineName],
  );
  return Number(rows[0]!.n);
}

describe('the workspace relay', () => {
  test("two machines see each other's events, in each one's order and each once, and never their own back", async () => {
    const url = await database();
    const alpha = machine(url, 'alpha');
    const beta = machine(url, 'beta');
    pin(alpha, 'before-joining'); // a machine's history before it joined stays its own
    await alpha.relay();
    await beta.relay();
    const names = Array.from({ length: 40 }, (_, i) => `e${i}`);
    for (const name of names) {
      pin(alpha, name);
      pin(beta, name);
    }
    await eventually(
      () => relayedOn(beta).length === 40 && relayedOn(alpha).length === 40,
      "both have the other's 40 events",
    );
    expect(relayedOn(beta)).toEqual(names.map((n) => `alpha:${n}`));
    expect(relayedOn(alpha)).toEqual(names.map((n) => `beta:${n}`));
    // The relayed events took local seqs between this machine's own: one sequence, no gap.
    expect(alpha.bus.listAll().map((e) => e.seq)).toEqual(Array.from({ length: 81 }, (_, i) => i + 1));
    expect(await loggedCount(alpha.pool, 'alpha')).toBe(40);
  });

  test('events published while the store is away are relayed once it is back, in order, and the publish never waits for it', async () => {
    const url = await database();
    const alpha = machine(url, 'alpha');
    const beta = machine(url, 'beta');
    await alpha.relay({ refusedTries: 1 }); // a missing table is the store's failure, not the event's: never skipped
    await beta.relay();
    pin(alpha, 'one');
    await eventually(() => relayedOn(beta).length === 1, 'the first event arrives');
    await alpha.pool.query('ALTER TABLE workspace_events RENAME TO workspace_events_away');
    // Published and numbered at once, the store away: `publish` is synchronous, so it cannot have
    // waited on the store (every store call is a promise); the relay carries them later.
    const seqs = ['two', 'three', 'four'].map((name) => pin(alpha, name));
    expect(seqs).toEqual([seqs[0]!, seqs[0]! + 1, seqs[0]! + 2]);
    await eventually(
      () => alpha.warnings.some((w) => w.includes('trying again')),
      'the relay reports the failed append',
    );
    await alpha.pool.query('ALTER TABLE workspace_events_away RENAME TO workspace_events');
    await eventually(() => relayedOn(beta).length === 4, 'the events published during the outage arrive');
    expect(relayedOn(beta)).toEqual(['alpha:one', 'alpha:two', 'alpha:three', 'alpha:four']);
  });

  test('a relay started again goes on from its cursor: what was published while it was down goes out, nothing twice', async () => {
    const url = await database();
    const alpha = machine(url, 'alpha');
    const beta = machine(url, 'beta');
    let relay = await alpha.relay();
    const betaRelay = await beta.relay();
    pin(alpha, 'one');
    await relay.idle();
    await relay.close();
    pin(alpha, 'two'); // the supervisor was down, or not clustered for a while
    relay = await alpha.relay();
    await relay.idle();
    // A crash between an append and the cursor's write: the log is ahead of the cursor.
    pin(alpha, 'three');
    await relay.idle();
    await relay.close();
    alpha.bus.setCursor(OUT_CURSOR, alpha.bus.cursor(OUT_CURSOR)! - 1);
    relay = await alpha.relay();
    pin(alpha, 'four');
    await relay.idle();
    // Beta's side stopped too: on its return it reads on from the newest event it stored.
    await betaRelay.close();
    pin(alpha, 'five');
    await relay.idle();
    await beta.relay();
    await eventually(() => relayedOn(beta).length >= 5, 'beta has the five events');
    expect(relayedOn(beta)).toEqual(['alpha:one', 'alpha:two', 'alpha:three', 'alpha:four', 'alpha:five']);
    expect(await loggedCount(alpha.pool, 'alpha')).toBe(5);
  });

  test('an event the store refuses is skipped with a warning, and the ones after it still go, in order', async () => {
    const url = await database();
    const alpha = machine(url, 'alpha');
    const beta = machine(url, 'beta');
    await alpha.relay({ refusedTries: 2 });
    await beta.relay();
    pin(alpha, 'one');
    pin(alpha, 'nul \u0000 byte'); // jsonb refuses \u0000: the store will never take this one
    pin(alpha, 'three');
    await eventually(() => relayedOn(beta).length === 2, 'the two events the store takes arrive');
    expect(relayedOn(beta)).toEqual(['alpha:one', 'alpha:three']);
    expect(alpha.warnings.filter((w) => w.includes('skipped'))).toHaveLength(1);
  });
});
