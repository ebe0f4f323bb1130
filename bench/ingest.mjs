/**
 * Ingestion alone, in one process: the real ingestor (src/sessions/ingest.ts) reading sessions'
 * logs into a fresh store, against a raw better-sqlite3 insert of the same number of rows made in
 * the same process, taken in turn. `npm run bench fifty` measures the same through a supervisor's
 * restart; this one is small enough to profile (`node --cpu-prof bench/ingest.mjs`) and to run
 * again and again on a busy machine.
 *
 *   node bench/ingest.mjs [sessions=10] [events=2000] [rounds=5]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dist = (path) => import(join(ROOT, 'dist', path));
const { openDb } = await dist('store/db.js');
const { SessionStore } = await dist('store/sessions.js');
const { WorkspaceBus } = await dist('bus/index.js');
const { Ingestor } = await dist('sessions/ingest.js');
const { makeEvent, parseEventText } = await dist('events/index.js');
const { sessionPaths } = await dist('shared/paths.js');
const { setLogFile } = await dist('shared/log.js');

const SESSIONS = Number(process.argv[2] ?? 10);
const EVENTS = Number(process.argv[3] ?? 2000);
const ROUNDS = Number(process.argv[4] ?? 5);

/** What a scripted session that says `EVENTS` lines writes, as the fifty-session bench has them. */
function logOf() {
  const bodies = [
    { type: 'state.changed', to: 'queued' },
    { type: 'state.changed', from: 'queued', to: 'preparing' },
    {
      type: 'session.started',
      agent: 'scripted',
      cwd: '/repo/w',
      hostPid: 1234,
      resumed: false,
      sandbox: 'none',
    },
    { type: 'state.changed', from: 'preparing', to: 'working' },
    { type: 'turn.started', prompt: 'fifty' },
    { type: 'question.asked', text: 'go?' },
    { type: 'state.changed', from: 'working', to: 'needs_input', reason: { kind: 'question', text: 'go?' } },
    { type: 'question.answered', text: 'go' },
    { type: 'state.changed', from: 'needs_input', to: 'working' },
  ];
  for (let i = 0; i < EVENTS; i++)
    bodies.push({ type: 'message.added', role: 'assistant', text: `line ${i}` });
  bodies.push({ type: 'question.asked', text: 'done?' });
  bodies.push({
    type: 'state.changed',
    from: 'working',
    to: 'needs_input',
    reason: { kind: 'question', text: 'done?' },
  });
  return bodies.map((body, i) => JSON.stringify(makeEvent(i + 1, body)) + '\n').join('');
}

function ingestRound(text) {
  const home = mkdtempSync(join(tmpdir(), 'baton-ingest-bench-'));
  setLogFile(join(home, 'supervisor.log'));
  const db = openDb(join(home, 'baton.db'));
  const store = new SessionStore(db);
  const bus = new WorkspaceBus(db);
  const ingestor = new Ingestor(home, db, store, bus);
  const project = store.ensureProject('/repo');
  const ids = [];
  for (let s = 0; s < SESSIONS; s++) {
    const id = `sess-${s}`;
    store.insert(
      {
        id,
        project_id: project.id,
        name: `s${s}`,
        agent: 'scripted',
        prompt: 'p',
        model: null,
        permission_mode: 'default',
        options_json: '{}',
        branch: `baton/s${s}`,
        base_ref: 'main',
        base_commit: '0'.repeat(40),
        worktree: `/w/${s}`,
      },
      'queued',
    );
    mkdirSync(sessionPaths(home, id).dir, { recursive: true });
    writeFileSync(sessionPaths(home, id).events, text);
    ids.push(id);
  }
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let n = 0;
  for (const id of ids) n += ingestor.ingest(id);
  const cpu = cpuMs(process.cpuUsage(c0));
  const ms = performance.now() - t0;
  ingestor.search.close?.();
  db.close();
  rmSync(home, { recursive: true, force: true });
  return { n, ms, cpu };
}

/** The bench's raw floor (bench/run.mjs `rawSqliteRate`): the same number of rows, one transaction. */
function rawRound(n) {
  const home = mkdtempSync(join(tmpdir(), 'baton-ingest-raw-'));
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(join(home, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE events (session_id TEXT, seq INTEGER, ts TEXT, type TEXT, body_json TEXT, PRIMARY KEY (session_id, seq)) WITHOUT ROWID',
  );
  const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
  const body = JSON.stringify({
    v: 1,
    seq: 1,
    ts: new Date().toISOString(),
    type: 'message.added',
    role: 'assistant',
    text: 'line 1234',
  });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  db.transaction(() => {
    for (let i = 0; i < n; i++)
      insert.run(`s${i % 50}`, i, '2026-01-01T00:00:00.000Z', 'message.added', body);
  })();
  const cpu = cpuMs(process.cpuUsage(c0));
  const ms = performance.now() - t0;
  db.close();
  rmSync(home, { recursive: true, force: true });
  return { ms, cpu };
}

/**
 * What no ingestion of these logs can skip, in CPU time: every session's log split into lines,
 * each line's `JSON.parse` alone, and with the schema's check (`parseEventText`).
 */
function floorRound(text) {
  const buffer = Buffer.from(text);
  const c0 = process.cpuUsage();
  const lines = [];
  for (let s = 0; s < SESSIONS; s++)
    for (let start = 0, nl = buffer.indexOf(10); nl !== -1; start = nl + 1, nl = buffer.indexOf(10, start))
      lines.push(buffer.toString('utf8', start, nl));
  const split = cpuMs(process.cpuUsage(c0));
  const c1 = process.cpuUsage();
  for (const line of lines) JSON.parse(line);
  const parse = cpuMs(process.cpuUsage(c1));
  const c2 = process.cpuUsage();
  for (const line of lines) parseEventText(line);
  const checked = cpuMs(process.cpuUsage(c2));
  return { split, parse, checked };
}

/** CPU time (user and system) in ms: on a shared machine it moves far less than wall time. */
function cpuMs(usage) {
  return (usage.user + usage.system) / 1000;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const text = logOf();
const wall = [];
const cpu = [];
const bound = [];
for (let r = 0; r < ROUNDS; r++) {
  const ingested = ingestRound(text);
  const raw = rawRound(ingested.n);
  const floor = floorRound(text);
  wall.push(raw.ms / ingested.ms);
  cpu.push(raw.cpu / ingested.cpu);
  // Ingestion inserts what raw does and must split, parse and check every line besides.
  bound.push(raw.cpu / (raw.cpu + floor.split + floor.checked));
  console.log(
    `round ${r + 1}: ingested ${ingested.n} events in ${ingested.ms.toFixed(0)} ms wall, ${ingested.cpu.toFixed(0)} ms CPU; raw ${raw.ms.toFixed(0)} ms wall, ${raw.cpu.toFixed(0)} ms CPU → ${wall.at(-1).toFixed(2)}× raw (wall), ${cpu.at(-1).toFixed(2)}× raw (CPU); lines split ${floor.split.toFixed(0)} ms, JSON.parse ${floor.parse.toFixed(0)} ms, parsed and checked ${floor.checked.toFixed(0)} ms CPU → at best ${bound.at(-1).toFixed(2)}× raw; load ${loadavg()[0].toFixed(1)}`,
  );
}
console.log(
  `median over ${ROUNDS} rounds: ${median(wall).toFixed(2)}× raw in wall time, ${median(cpu).toFixed(2)}× raw in CPU time; the split, parse and check alone bound it at ${median(bound).toFixed(2)}× raw`,
);
// Something the store opened (the search index's timers, the log) keeps the loop alive: end here.
process.exit(0);
