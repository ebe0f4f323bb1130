// The workspace bus across machines (decision 135), part of `node bench/run.mjs cluster`: two
// machines, each with its own SQLite bus and a WorkspaceRelay on one PostgreSQL.
//
// - Relay latency: beta publishes a workspace event → alpha's bus follower (what `/api/stream`
//   serves) has it; one at a time, so each figure is one event's whole trip (beta's relay reads
//   its SQLite and appends, NOTIFY, alpha reads the log and stores it under a local seq).
// - The local publish with and without a relay: the `publish` call itself (validate, SQLite
//   insert, deliver), the relay running beside it; and how fast the relay empties a burst.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const LATENCY_SAMPLES = 300;
const PUBLISHES = 2_000;

const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(2)} ms`;
const us = (x) => `${(x * 1000).toFixed(1)} µs`;
const tick = () => new Promise((r) => setImmediate(r));

export async function relayFigures(cluster, url, root) {
  const { openDb } = await import(pathToFileURL(join(root, 'dist', 'store', 'db.js')).href);
  const { WorkspaceBus } = await import(pathToFileURL(join(root, 'dist', 'bus', 'index.js')).href);
  const { SessionPinned } = await import(pathToFileURL(join(root, 'dist', 'events', 'workspace.js')).href);
  const machines = [];
  const open = async (name, relayed = true) => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-bench-relay-'));
    const db = openDb(join(dir, 'baton.db'));
    const bus = new WorkspaceBus(db);
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const listener = new cluster.Listener(url, [cluster.BUS_CHANNEL]);
    const relay = new cluster.WorkspaceRelay({
      log: new cluster.PgWorkspaceLog(pool, listener),
      machine: name,
      bus,
    });
    if (relayed) await relay.start();
    const m = {
      name,
      bus,
      relay,
      close: async () => (
        await relay.close(),
        await listener.close(),
        await pool.end(),
        db.close(),
        rmSync(dir, { recursive: true, force: true })
      ),
    };
    machines.push(m);
    return m;
  };
  const pin = (m, i) =>
    m.bus.publish(SessionPinned, {
      sessionId: `${m.name}-${i}`,
      name: `w${i}`,
      project: 'bench',
      pinned: i % 2 === 0,
    });
  try {
    // Latency, beta → alpha's follower.
    const alpha = await open('relay-alpha');
    const beta = await open('relay-beta');
    let arrived = () => {};
    let close;
    const closed = new Promise((r) => (close = r));
    const following = alpha.bus.follow(
      alpha.bus.lastSeq(),
      async (event) => {
        if ('machine' in event) arrived(now());
      },
      closed,
    );
    const latencies = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const got = new Promise((r) => (arrived = r));
      const t = now();
      pin(beta, i);
      latencies.push((await got) - t);
    }
    close();
    await following;
    console.log(
      `workspace event beta → alpha's stream (${LATENCY_SAMPLES}): p50 ${ms(pct(latencies, 0.5))}, p95 ${ms(pct(latencies, 0.95))}`,
    );
    // The receivers are other processes in life: closed here, so the figures below are the publisher's alone.
    for (const m of machines.splice(0)) await m.close();

    // The publish call alone and with a relay draining beside it (each publish lets the loop turn).
    const cost = async (m, relayed) => {
      const calls = [];
      const t = now();
      for (let i = 0; i < PUBLISHES; i++) {
        const s = now();
        pin(m, i);
        calls.push(now() - s);
        await tick();
      }
      const published = now() - t;
      if (relayed) await m.relay.idle();
      return { p50: pct(calls, 0.5), p95: pct(calls, 0.95), published, drained: now() - t };
    };
    const alone = await cost(await open('relay-alone', false), false);
    const withRelay = await cost(await open('relay-with'), true);
    console.log(
      `local publish (${PUBLISHES}), no relay: p50 ${us(alone.p50)}, p95 ${us(alone.p95)}; with the relay: p50 ${us(withRelay.p50)}, p95 ${us(withRelay.p95)}`,
    );
    console.log(
      `  the burst published in ${ms(withRelay.published)} (alone ${ms(alone.published)}); all in the shared log after ${ms(withRelay.drained)} (${Math.round(PUBLISHES / (withRelay.drained / 1000))} events/s relayed)`,
    );
  } finally {
    for (const m of machines) await m.close();
  }
}
