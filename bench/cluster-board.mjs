// Board load in a shared workspace (decision 120, "The cluster layer"), part of `node bench/run.mjs
// cluster`: three machines with 50 sessions each publish to one PostgreSQL while a fourth machine's
// board follows.
//
// - Cold board: the fourth machine's mirror started after the 150 sessions exist (rebuild time).
// - Events per second through the shared store: the three machines publishing session events at
//   once (each session event one `cluster.event` row), against one machine alone, same run.
// - Live board under that load: one session's new view published → seen on the fourth machine.
import pg from 'pg';

const MACHINES = 3;
const SESSIONS = 50;
const EVENTS_EACH = 600;
const UPDATES = 100;

const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(2)} ms`;

function machineOn(cluster, url, name) {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const listener = new cluster.Listener(url, [cluster.BUS_CHANNEL]);
  const mirror = new cluster.SessionMirror({
    log: new cluster.PgWorkspaceLog(pool, listener),
    machine: name,
  });
  return {
    name,
    mirror,
    close: async () => (await mirror.close(), await listener.close(), await pool.end()),
  };
}

const view = (machine, i, lastSeq, state = 'working') => ({
  id: `${machine}-s${i}`,
  name: `${machine}-s${i}`,
  state,
  lastSeq,
  project: 'bench',
  agent: 'scripted',
});
const event = (seq) => ({
  v: 1,
  seq,
  ts: new Date().toISOString(),
  type: 'message.added',
  role: 'assistant',
  text: `step ${seq} of the work, with a line or two of what the agent said`.repeat(2),
});

export async function boardLoad(cluster, url) {
  const machines = Array.from({ length: MACHINES }, (_, m) => machineOn(cluster, url, `load-${m}`));
  for (const m of machines) for (let i = 0; i < SESSIONS; i++) await m.mirror.publish(view(m.name, i, 1));

  // Cold: a fourth machine opens its board on 150 sessions.
  const viewer = machineOn(cluster, url, 'load-viewer');
  const t0 = now();
  await viewer.mirror.start();
  const cold = now() - t0;
  const seen = viewer.mirror
    .remoteSessions()
    .filter((r) => r.machine.startsWith('load-') && r.machine !== 'load-viewer').length;
  if (seen !== MACHINES * SESSIONS)
    throw new Error(`the viewer saw ${seen} sessions, not ${MACHINES * SESSIONS}`);

  // Throughput: one machine alone, then the three at once, each event its own append.
  const publishEvents = async (m, from) => {
    for (let k = 0; k < EVENTS_EACH; k++)
      await m.mirror.publishEvent(`${m.name}-s${k % SESSIONS}`, event(from + k));
  };
  let t = now();
  await publishEvents(machines[0], 1);
  const alone = EVENTS_EACH / ((now() - t) / 1000);
  t = now();
  const busy = Promise.all(machines.map((m) => publishEvents(m, EVENTS_EACH + 1)));
  // Live: while they publish, one session's view goes from the first machine to the viewer.
  let waiter;
  const off = viewer.mirror.onChange((change) => {
    if (change.kind === 'session' && change.view.id === 'load-0-s0' && change.view.lastSeq === waiter?.seq)
      waiter.resolve(now());
  });
  const live = [];
  for (let u = 2; u < UPDATES + 2; u++) {
    const arrived = new Promise((resolve) => (waiter = { seq: u, resolve }));
    const sent = now();
    await machines[0].mirror.publish(view('load-0', 0, u));
    live.push((await arrived) - sent);
  }
  await busy;
  const together = (MACHINES * EVENTS_EACH) / ((now() - t) / 1000);
  off();
  await Promise.all([...machines, viewer].map((m) => m.close()));
  console.log(`board load, ${MACHINES} machines × ${SESSIONS} sessions, a 4th machine's board:`);
  console.log(`  cold start (rebuild of ${MACHINES * SESSIONS} sessions):          ${ms(cold)}`);
  console.log(`  session events through the store, 1 machine:  ${Math.round(alone)} events/s`);
  console.log(
    `  session events through the store, 3 at once:  ${Math.round(together)} events/s (${(together / alone).toFixed(2)}× one machine)`,
  );
  console.log(
    `  a view update → seen by the board, under that load: p50 ${ms(pct(live, 0.5))}, p95 ${ms(pct(live, 0.95))} (${live.length} updates)`,
  );
}
