// Cluster benchmark (`node bench/run.mjs cluster`, after a build): the PostgreSQL layer (decision 120,
// "The cluster layer").
//
// 1. Events per second through PgWorkspaceLog.append (validate, advisory lock, INSERT, NOTIFY,
//    one transaction) against a raw INSERT loop on one connection, in the same run; and with 3
//    publishers at once.
// 2. Append → follower delivery latency (another process's log instance, its own LISTEN
//    connection), against a bare pg_notify → LISTEN round trip.
// 3. Dispatch → claim latency: Placement.dispatch until a claimer on another connection has
//    recorded the placement, woken by NOTIFY (the poll is set to 10 minutes, so it never helps).
// 4. The session mirror: publish → the view visible on another machine's mirror; a command's
//    round trip to another machine's server; the view rebuilt at start from 10,000 log rows by
//    the latest-row query against a replay of the log.
// 5. Board load with 3 machines × 50 sessions (cluster-board.mjs).
// 6. The workspace bus relayed between machines: latency and the local publish's cost (cluster-relay.mjs).
// 7. The settings machines share: an allow rule lookup, a budget change and a spend reaching another machine (cluster-settings.mjs).
// 8. The tasks machines share: a hand add, and a task added on one machine reaching another's SQLite (cluster-tasks.mjs).
//
// Starts its own PostgreSQL (initdb + pg_ctl from scripts/postgres.mjs; as root, run by the
// `baton-test` user), or uses BATON_BENCH_PG_URL's server if set (tables are created there).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { findPostgres } from '../scripts/postgres.mjs';
import { boardLoad } from './cluster-board.mjs';
import { relayFigures } from './cluster-relay.mjs';
import { settingsFigures } from './cluster-settings.mjs';
import { tasksFigures } from './cluster-tasks.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const cluster = await import(pathToFileURL(join(ROOT, 'dist', 'cluster', 'index.js')).href);
const EVENTS = Number(process.env.BATON_BENCH_CLUSTER_EVENTS ?? 3_000);
const ROUND_TRIPS = 500;
const DISPATCHES = 200;

const now = () => Number(process.hrtime.bigint()) / 1e6;
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95), n: s.length };
};
const ms = (x) => `${x.toFixed(2)} ms`;
const ref = (i) => ({ sessionId: `s${i}`, name: `w${i}`, project: 'bench' });

async function main() {
  const server = process.env.BATON_BENCH_PG_URL
    ? { url: process.env.BATON_BENCH_PG_URL, stop: () => {} }
    : await startServer();
  try {
    console.log(
      `\n## Cluster on PostgreSQL (${EVENTS} events, ${ROUND_TRIPS} deliveries, ${DISPATCHES} dispatches)`,
    );
    const pool = new pg.Pool({ connectionString: server.url, max: 6 });
    await cluster.migrate(pool);
    // BATON_BENCH_CLUSTER_ONLY=relay|settings|tasks: those figures alone (the rest takes minutes).
    if (process.env.BATON_BENCH_CLUSTER_ONLY === undefined) {
      await throughput(server.url, pool);
      await delivery(server.url, pool);
      await dispatch(server.url, pool);
      await mirror(server.url);
      await commands(server.url);
      await rebuild(server.url);
      await boardLoad(cluster, server.url);
    }
    const only = process.env.BATON_BENCH_CLUSTER_ONLY;
    if (only === undefined || only === 'relay') await relayFigures(cluster, server.url, ROOT);
    if (only === undefined || only === 'relay' || only === 'settings')
      await settingsFigures(cluster, server.url, ROOT);
    if (only === undefined || only === 'tasks') await tasksFigures(cluster, server.url, ROOT);
    await pool.end();
  } finally {
    server.stop();
  }
}

async function throughput(url, pool) {
  const raw = await pool.connect();
  let t = now();
  for (let i = 0; i < EVENTS; i++) {
    await raw.query('INSERT INTO workspace_events (at, type, data) VALUES ($1, $2, $3)', [
      new Date(),
      'session.pinned',
      JSON.stringify({ ...ref(i), pinned: true }),
    ]);
  }
  const rawRate = EVENTS / ((now() - t) / 1000);
  raw.release();

  const listener = new cluster.Listener(url, [cluster.BUS_CHANNEL]);
  const log = new cluster.PgWorkspaceLog(pool, listener);
  t = now();
  for (let i = 0; i < EVENTS; i++) await log.append('session.pinned', { ...ref(i), pinned: true });
  const appendRate = EVENTS / ((now() - t) / 1000);

  t = now();
  await Promise.all(
    [0, 1, 2].map(async (p) => {
      for (let i = 0; i < EVENTS / 3; i++)
        await log.append('session.pinned', { ...ref(p * EVENTS + i), pinned: true });
    }),
  );
  const concurrentRate = EVENTS / ((now() - t) / 1000);
  await listener.close();
  console.log(`raw INSERT loop (one connection, autocommit): ${Math.round(rawRate)} events/s`);
  console.log(
    `PgWorkspaceLog.append, one publisher:         ${Math.round(appendRate)} events/s (${(appendRate / rawRate).toFixed(2)}× raw)`,
  );
  console.log(
    `PgWorkspaceLog.append, 3 publishers at once:  ${Math.round(concurrentRate)} events/s (${(concurrentRate / rawRate).toFixed(2)}× raw)`,
  );
}

async function delivery(url, pool) {
  // Baseline: a bare NOTIFY from one connection to a LISTENing one.
  const listen = new pg.Client(url);
  await listen.connect();
  await listen.query('LISTEN bench_raw');
  let waiting;
  listen.on('notification', () => waiting?.());
  const bare = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const got = new Promise((r) => (waiting = r));
    const t = now();
    await pool.query("SELECT pg_notify('bench_raw', $1)", [String(i)]);
    await got;
    bare.push(now() - t);
  }
  await listen.end();

  const publisherListener = new cluster.Listener(url, [cluster.BUS_CHANNEL]);
  const followerListener = new cluster.Listener(url, [cluster.BUS_CHANNEL]);
  const followerPool = new pg.Pool({ connectionString: url, max: 2 });
  const publisher = new cluster.PgWorkspaceLog(pool, publisherListener);
  const follower = new cluster.PgWorkspaceLog(followerPool, followerListener);
  const last = (await publisher.list(0, 1_000_000)).at(-1)?.seq ?? 0;
  // The follower may hear an event before the publisher's COMMIT returns: arrivals are kept by seq.
  const arrivals = new Map();
  let waiter;
  const follow = await follower.follow(last, (event) => {
    arrivals.set(event.seq, now());
    if (waiter?.seq === event.seq) waiter.resolve();
  });
  const latency = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t = now();
    const { seq } = await publisher.append('session.pinned', { ...ref(i), pinned: true });
    if (!arrivals.has(seq)) await new Promise((resolve) => (waiter = { seq, resolve }));
    latency.push(arrivals.get(seq) - t);
  }
  await follow.close();
  await Promise.all([publisherListener.close(), followerListener.close(), followerPool.end()]);
  const b = stats(bare);
  const d = stats(latency);
  console.log(`bare pg_notify → LISTEN:                       p50 ${ms(b.p50)}, p95 ${ms(b.p95)}`);
  console.log(
    `append → follower onEvent (other connection):  p50 ${ms(d.p50)}, p95 ${ms(d.p95)} (${(d.p50 / b.p50).toFixed(1)}× bare at p50)`,
  );
}

async function dispatch(url, pool) {
  const dispatcherListener = new cluster.Listener(url, [cluster.DISPATCH_CHANNEL]);
  const workerListener = new cluster.Listener(url, [cluster.DISPATCH_CHANNEL]);
  await Promise.all([dispatcherListener.start(), workerListener.start()]);
  const workerPool = new pg.Pool({ connectionString: url, max: 3 });
  const dispatcher = await cluster.Placement.start({ url, pool });
  const worker = await cluster.Placement.start({ url, pool: workerPool });
  const waiting = new Map();
  const claimer = worker.claimer({
    worker: 'bench-worker',
    incarnation: 1,
    capacity: 4,
    listener: workerListener,
    pollMs: 600_000,
    onPlaced: (id) => {
      waiting.get(id)?.();
    },
  });
  const latency = [];
  for (let i = 0; i < DISPATCHES; i++) {
    const id = `bench-${i}`;
    const placed = new Promise((r) => waiting.set(id, r));
    const t = now();
    await dispatcher.dispatch({ sessionId: id });
    await placed;
    latency.push(now() - t);
    await claimer.release(id);
  }
  await claimer.close();
  await Promise.all([dispatcher.stop(), worker.stop()]);
  await Promise.all([dispatcherListener.close(), workerListener.close(), workerPool.end()]);
  const d = stats(latency);
  console.log(
    `dispatch → claimed on another connection:      p50 ${ms(d.p50)}, p95 ${ms(d.p95)} (pg-boss's own poll floor is 500 ms)`,
  );
}

/** One machine's mirror on its own pool and LISTEN connection. */
function mirrorOn(url, machine, options = {}) {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const listener = new cluster.Listener(url, [cluster.BUS_CHANNEL]);
  const mirror = new cluster.SessionMirror({
    log: new cluster.PgWorkspaceLog(pool, listener),
    machine,
    ...options,
  });
  return { mirror, close: async () => (await mirror.close(), await listener.close(), await pool.end()) };
}

async function mirror(url) {
  const a = mirrorOn(url, 'bench-a');
  const b = mirrorOn(url, 'bench-b');
  await b.mirror.start();
  let waiter;
  b.mirror.onChange((change) => {
    if (change.kind === 'session' && change.view.lastSeq === waiter?.seq) waiter.resolve(now());
  });
  const latency = [];
  for (let i = 1; i <= DISPATCHES; i++) {
    const seen = new Promise((resolve) => (waiter = { seq: i, resolve }));
    const t = now();
    await a.mirror.publish({
      id: 'bench-session',
      name: 'bench',
      state: 'running',
      lastSeq: i,
      project: 'bench',
    });
    latency.push((await seen) - t);
  }
  await Promise.all([a.close(), b.close()]);
  const d = stats(latency);
  console.log(
    `mirror publish → view on another machine:      p50 ${ms(d.p50)}, p95 ${ms(d.p95)} (${d.n} updates, one at a time)`,
  );
}

async function commands(url) {
  const side = () => {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const listener = new cluster.Listener(url, cluster.COMMAND_CHANNELS);
    return {
      commands: new cluster.RemoteCommands(pool, listener, { pollMs: 600_000 }),
      close: async () => (await listener.close(), await pool.end()),
    };
  };
  const sender = side();
  const owner = side();
  const serving = owner.commands.serve('bench-owner', (command) => ({ ok: command.kind }));
  const latency = [];
  for (let i = 0; i < DISPATCHES; i++) {
    const t = now();
    await sender.commands.send('bench-owner', { kind: 'reply', sessionId: 's1', text: `reply ${i}` });
    latency.push(now() - t);
  }
  await serving.close();
  sender.commands.close();
  owner.commands.close();
  await Promise.all([sender.close(), owner.close()]);
  const d = stats(latency);
  console.log(
    `command send → answered by another machine:    p50 ${ms(d.p50)}, p95 ${ms(d.p95)} (${d.n} replies)`,
  );
}

async function rebuild(url) {
  // A log of 10,000 mirror rows on a fresh database: 200 sessions × 10 view updates, and 8,000
  // events of theirs (a log is mostly events), from one machine; another machine starts cold.
  const admin = new pg.Client(url);
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS bench_rebuild');
  await admin.query('CREATE DATABASE bench_rebuild');
  await admin.end();
  const db = new URL(url);
  db.pathname = '/bench_rebuild';
  const pool = new pg.Pool({ connectionString: db.href, max: 2 });
  await cluster.migrate(pool);
  const rows = [];
  for (let i = 0; i < 10_000; i++) {
    const s = `s${(i % 5 === 0 ? i / 5 : i) % 200}`;
    if (i % 5 === 0)
      rows.push([
        'cluster.session',
        { machine: 'bench-a', sessionId: s, view: { id: s, name: s, state: 'running', lastSeq: i } },
      ]);
    else
      rows.push([
        'cluster.event',
        {
          machine: 'bench-a',
          sessionId: s,
          eventSeq: i + 1,
          event: {
            v: 1,
            seq: i + 1,
            ts: new Date().toISOString(),
            type: 'message.added',
            role: 'assistant',
            text: `message ${i} `.repeat(20),
          },
        },
      ]);
  }
  await pool.query(
    'INSERT INTO workspace_events (at, type, data) SELECT now(), r->>0, r->1 FROM jsonb_array_elements($1::jsonb) AS r',
    [JSON.stringify(rows)],
  );
  await pool.query('ANALYZE workspace_events');
  const figures = {};
  for (const mode of ['latest', 'replay', 'latest', 'replay']) {
    const b = mirrorOn(db.href, 'bench-b', { rebuild: mode });
    const t = now();
    await b.mirror.start();
    const took = now() - t;
    if (b.mirror.remoteSessions().length !== 200)
      throw new Error(`the ${mode} rebuild saw ${b.mirror.remoteSessions().length} sessions, not 200`);
    await b.close();
    figures[mode] = Math.min(figures[mode] ?? Infinity, took);
  }
  await pool.end();
  console.log(
    `mirror rebuild at start, 10,000 log rows:      latest-row query ${ms(figures.latest)}, replay ${ms(figures.replay)} (${(figures.replay / figures.latest).toFixed(1)}×; best of 2)`,
  );
}

/** initdb + start on a free loopback port; as root, run by the `baton-test` user (created if missing). */
async function startServer() {
  const bins = findPostgres();
  if (bins === undefined)
    throw new Error('No PostgreSQL found: run `node scripts/postgres.mjs`, or set BATON_BENCH_PG_URL.');
  const root = mkdtempSync(join(tmpdir(), 'baton-bench-pg-'));
  const data = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    try {
      execFileSync('id', ['-u', 'baton-test'], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'baton-test']);
    }
    execFileSync('chown', ['baton-test:', root]);
  }
  const as = (file, args) =>
    execFileSync(asRoot ? 'runuser' : file, asRoot ? ['-u', 'baton-test', '--', file, ...args] : args, {
      stdio: 'pipe',
    });
  const port = await new Promise((r) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => r(port));
    });
  });
  as(bins.initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  // fsync stays on: the figures are for a server that keeps what it acknowledges.
  as(bins.pgCtl, [
    '-D',
    data,
    '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${data}`,
    '-l',
    join(root, 'server.log'),
    '-w',
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        as(bins.pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

await main();
