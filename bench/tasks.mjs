#!/usr/bin/env node
// Tasks (decision 71, "Tasks are their own domain beside sessions"): the board's API with 1,000 tasks
// and 100 sessions started from them, and how fast a task transition reaches an open page's stream.
// Baselines measured in the same run: the same rows read raw with better-sqlite3, an empty
// authenticated request, the board's bytes answered by a bare node:http server, and a session pin
// (an existing transition) reaching the same stream. Build first; `node bench/run.mjs tasks`.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure } from './figures.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const TASKS = 1000;
const SESSIONS = 100;
const RUNS = 30;
const work = mkdtempSync(join(tmpdir(), 'baton-bench-tasks-'));
const home = join(work, 'home');
const env = {
  ...process.env,
  BATON_HOME: home,
  BATON_MAX_CONCURRENT: '8',
  BATON_IDLE_HOST_SECONDS: '1',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const baton = (args, cwd) =>
  new Promise((done, fail) =>
    execFile(process.execPath, [BIN, ...args], { cwd, env }, (e, out, err) =>
      e ? fail(new Error(err)) : done(out),
    ),
  );
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95) };
};
const f = (n) => `${n.toFixed(1)} ms`;

const repo = join(work, 'repo');
execFileSync('git', ['init', '-q', '-b', 'main', repo], { env });
writeFileSync(join(repo, 'README.md'), '# bench\n');
execFileSync('git', ['add', '.'], { cwd: repo, env });
execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo, env });

await baton(['daemon', 'start'], repo);
const info = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8'));
const token = readFileSync(join(home, 'token'), 'utf8').trim();
const base = `http://127.0.0.1:${info.port}`;
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-baton-cwd': repo };
async function call(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

try {
  console.log(`\n## Tasks: ${TASKS} tasks, ${SESSIONS} sessions started from them`);
  for (let i = 0; i < TASKS; i++)
    await call('POST', '/api/tasks', {
      title: `task ${i}`,
      tracker: `#${i + 1}`,
      scope: [`d${i}/**`],
      ...(i > 0 && i % 10 === 0 ? { after: [i] } : {}),
    });
  const script = { steps: [{ say: 'done' }] };
  for (let i = 1; i <= SESSIONS; i++)
    await call('POST', `/api/tasks/${i * 2}/start`, {
      agent: 'scripted',
      name: `s${i}`,
      options: { script },
      force: true,
    });
  for (;;) {
    const { sessions } = await call('GET', '/api/sessions');
    if (sessions.filter((s) => s.state === 'ready_for_review').length >= SESSIONS - 10) break;
    await new Promise((r) => setTimeout(r, 200)); // a bench, not a test: polling the state is fine here
  }

  // Board load: the whole board as JSON, against an empty request and the raw rows. Alternated
  // within each round, so a load on the machine weighs on all alike. "After a change" is a load
  // right after a card moved (the supervisor's kept board is then stale and built again: decision
  // 420); the plain load is a board nothing changed since, as a page reloading it meets.
  const Database = createRequire(import.meta.url)(join(ROOT, 'node_modules', 'better-sqlite3'));
  const db = new Database(join(home, 'baton.db'), { readonly: true });
  const rawRows = () =>
    JSON.stringify(
      db
        .prepare(
          'SELECT t.*, (SELECT json_group_array(after_id) FROM task_dependencies d WHERE d.task_id = t.id) AS deps FROM tasks t ORDER BY board_column, rank',
        )
        .all(),
    );
  // The supervisor's steps for a board, done here on the same rows with its own modules: the rows
  // read, the cards built from them, the answer as JSON.
  const { TaskStore } = await import(join(ROOT, 'dist', 'store', 'tasks.js'));
  const { SessionStore } = await import(join(ROOT, 'dist', 'store', 'sessions.js'));
  const { Cards } = await import(join(ROOT, 'dist', 'tasks', 'cards.js'));
  const store = new TaskStore(db);
  const cards = new Cards(store, new SessionStore(db));
  // The floor of sending the board at all: the same bytes, answered by a bare node:http server in
  // a process of its own (no routing, no checks, the bytes ready), and its empty answer, timed in
  // the same rounds. A board load cannot beat the request itself plus moving its bytes.
  const first = await (await fetch(`${base}/api/tasks`, { headers })).text();
  const bare = spawn(
    process.execPath,
    [
      '-e',
      `process.once('disconnect', () => process.exit());
       process.once('message', (text) => {
         const bytes = Buffer.from(text);
         const server = require('node:http').createServer((req, res) => {
           const body = req.url === '/empty' ? Buffer.from('{}') : bytes;
           res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
           res.end(body);
         });
         server.keepAliveTimeout = 60000;
         server.listen(0, '127.0.0.1', () => process.send(server.address().port));
       });`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  bare.send(first);
  const barePort = await new Promise((done) => bare.once('message', done));
  const bareBase = `http://127.0.0.1:${barePort}`;
  const board = [];
  const changed = [];
  const empty = [];
  const raw = [];
  const bareBoard = [];
  const bareEmpty = [];
  const reloaded = [];
  const steps = { 'rows read (TaskStore.list)': [], 'cards built from them': [], 'the answer as JSON': [] };
  let bytes = 0;
  let version = 0;
  const timed = async (into, work) => {
    const t = performance.now();
    const result = await work();
    into.push(performance.now() - t);
    return result;
  };
  for (let i = 0; i < RUNS; i++) {
    let etag = null;
    const text = await timed(board, async () => {
      const res = await fetch(`${base}/api/tasks`, { headers });
      etag = res.headers.get('etag');
      return res.text();
    });
    bytes = Buffer.byteLength(text);
    await timed(bareBoard, async () => (await fetch(`${bareBase}/board`)).text());
    await timed(bareEmpty, async () => (await fetch(`${bareBase}/empty`)).text());
    // A page reloading the board sends the tag it holds: "not modified", no bytes.
    if (etag !== null)
      await timed(reloaded, async () =>
        (await fetch(`${base}/api/tasks`, { headers: { ...headers, 'if-none-match': etag } })).text(),
      );
    await call('POST', `/api/tasks/${1 + (i % TASKS)}`, { title: `task ${i % TASKS} v${++version}` });
    await timed(changed, async () => (await fetch(`${base}/api/tasks`, { headers })).text());
    await timed(empty, async () =>
      (await fetch(`${base}/api/workspace/events?after=999999999&limit=1`, { headers })).text(),
    );
    await timed(raw, rawRows);
    const rows = await timed(steps['rows read (TaskStore.list)'], () => store.list());
    const built = await timed(steps['cards built from them'], () =>
      cards.cards(rows, undefined, () => undefined),
    );
    await timed(steps['the answer as JSON'], () => JSON.stringify({ columns: built }));
  }
  db.close();
  bare.kill();
  const b = stats(board);
  const bb = stats(bareBoard);
  const be = stats(bareEmpty);
  const c = stats(changed);
  const e = stats(empty);
  const r = stats(raw);
  figure({
    section: 'tasks',
    name: 'tasks board load 1000 tasks',
    value: b.p50,
    unit: 'ms',
    floor: e.p50,
    floorName: 'an empty request',
    goal: 2,
  });
  figure({
    section: 'tasks',
    name: 'tasks board load vs raw rows',
    value: b.p50,
    unit: 'ms',
    floor: r.p50,
    floorName: 'rows read raw and stringified',
    goal: 2,
  });
  figure({
    section: 'tasks',
    name: 'tasks board load vs its bytes from a bare server',
    value: b.p50,
    unit: 'ms',
    floor: bb.p50,
    floorName: 'the same bytes answered by a bare node:http server',
  });
  figure({
    section: 'tasks',
    name: 'tasks board load after a change vs raw rows',
    value: c.p50,
    unit: 'ms',
    floor: r.p50,
    floorName: 'rows read raw and stringified',
  });
  console.log(
    `board load (GET /api/tasks, ${(bytes / 1024).toFixed(0)} KB): p50 ${f(b.p50)}, p95 ${f(b.p95)}; an empty request ${f(e.p50)} (${(b.p50 / e.p50).toFixed(1)}×); the rows read raw with better-sqlite3 and stringified ${f(r.p50)} (${(b.p50 / r.p50).toFixed(1)}×, goal 2×: ${b.p50 / r.p50 <= 2 ? 'MET' : 'NOT MET'})`,
  );
  console.log(
    `  the floor: the same ${(bytes / 1024).toFixed(0)} KB from a bare node:http server ${f(bb.p50)} (${(bb.p50 / e.p50).toFixed(1)}× an empty request; its own empty answer ${f(be.p50)}); the board ${(b.p50 / bb.p50).toFixed(1)}× that floor${reloaded.length === 0 ? '' : `; a reload sending its tag (304): p50 ${f(stats(reloaded).p50)}`}`,
  );
  console.log(
    `board load right after a card changed (built again): p50 ${f(c.p50)}, p95 ${f(c.p95)} (${(c.p50 / r.p50).toFixed(1)}× the raw rows)`,
  );
  console.log(
    `  its steps, done in this process on the same rows: ${Object.entries(steps)
      .map(([name, values]) => `${name} ${f(stats(values).p50)}`)
      .join(
        '; ',
      )}; the rest is the request itself (an empty one: ${f(e.p50)}) and sending ${(bytes / 1024).toFixed(0)} KB`,
  );
  console.log(`  load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`);

  // A transition reaching an open page: from the request to the event on /api/stream.
  const controller = new AbortController();
  const res = await fetch(`${base}/api/stream?sessions=0`, { headers, signal: controller.signal });
  const reader = res.body.getReader();
  const waiting = new Map();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += new TextDecoder().decode(value);
        let cut;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data === undefined) continue;
          const event = JSON.parse(data.slice(6));
          const key =
            event.type === 'task.moved'
              ? `task:${event.data.task.id}:${event.data.to}`
              : event.type === 'session.pinned'
                ? `pin:${event.data.name}:${event.data.pinned}`
                : undefined;
          waiting.get(key)?.(performance.now());
        }
      }
    } catch {}
  })();
  const reach = (key, send) =>
    new Promise((done) => {
      const t = performance.now();
      waiting.set(key, (at) => (waiting.delete(key), done(at - t)));
      send();
    });
  await new Promise((r) => setTimeout(r, 300)); // let the stream open before timing
  const moves = [];
  const pins = [];
  const columns = ['ready', 'review'];
  for (let i = 0; i < RUNS; i++) {
    const id = 1 + ((i * 37) % TASKS);
    const to = columns[i % 2];
    moves.push(
      await reach(`task:${id}:${to}`, () =>
        call('POST', `/api/tasks/${id}/move`, { column: to, position: 0 }),
      ),
    );
    pins.push(
      await reach(`pin:s1:${i % 2 === 0}`, () =>
        call('POST', '/api/sessions/s1/pin', { pinned: i % 2 === 0 }),
      ),
    );
  }
  controller.abort();
  const m = stats(moves);
  const p = stats(pins);
  console.log(
    `task move reaching an open stream: p50 ${f(m.p50)}, p95 ${f(m.p95)} (goal under 100 ms: ${m.p95 < 100 ? 'MET' : 'NOT MET'}); a session pin, the same way: p50 ${f(p.p50)} (${(m.p50 / p.p50).toFixed(1)}×)`,
  );
} finally {
  await baton(['daemon', 'stop', '--all'], repo).catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
}
