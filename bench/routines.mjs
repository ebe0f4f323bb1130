// Routines (decision 115, "Routines: the timer reads the wall clock at least once a minute"): the
// timer's cost with 1,000 routines defined (CPU per minute, memory), against the same timer with none;
// and the delay from a routine's due time to its session's first event with the real supervisor,
// against a plain `baton dispatch` to its first event. Run after `npm run build`: node
// bench/routines.mjs
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkspaceBus } from '../dist/bus/index.js';
import { RoutineService } from '../dist/routines/index.js';
import { openDb } from '../dist/store/db.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const COUNT = Number(process.env.BENCH_ROUTINES ?? 1000);
const SAMPLES = Number(process.env.BENCH_ROUTINE_FIRES ?? 5);
const work = mkdtempSync(join(tmpdir(), 'baton-bench-routines-'));
const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

function repo(name) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env: gitEnv });
  execFileSync('git', ['add', '.'], { cwd: dir, env: gitEnv });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: dir, env: gitEnv });
  return dir;
}

/** The timer's pass over every routine (nothing due): CPU per tick, and ticks per minute at most one when idle. */
async function timerCost(count) {
  const dir = join(work, `timer-${count}`);
  mkdirSync(dir);
  const db = openDb(join(dir, 'baton.db'));
  const bus = new WorkspaceBus(db);
  const sessions = {
    list: () => [],
    get: () => undefined,
    dispatch: () => Promise.reject(new Error('nothing is due')),
    remove: () => Promise.resolve(),
    lastMessage: () => undefined,
    changedFiles: () => Promise.resolve(0),
  };
  const clock = { now: () => new Date(), setTimer: () => undefined, clearTimer: () => undefined };
  const service = new RoutineService({ db, bus, sessions, clock });
  const root = repo(`r-${count}`);
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++)
    await service.add({
      name: `r${i}`,
      cwd: root,
      spec: { cron: `${i % 60} ${i % 24} 1 1 *`, tz: 'Europe/Berlin', agent: 'scripted', prompt: 'p' },
    });
  global.gc?.();
  const heap = process.memoryUsage().heapUsed - heapBefore;
  const cpu = [];
  for (let i = 0; i < 30; i++) {
    const start = process.cpuUsage();
    await service.tick();
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
  }
  service.close();
  db.close();
  return { tickMs: median(cpu), heap };
}

function baton(home, args, cwd) {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...process.env, BATON_HOME: home } },
      (error, stdout, stderr) =>
        error ? fail(new Error(`baton ${args.join(' ')}: ${stderr}`)) : done(stdout),
    );
  });
}

function firstEventAt(home, sessionId) {
  const line = readFileSync(join(home, 'sessions', sessionId, 'events.jsonl'), 'utf8').split('\n')[0];
  return Date.parse(JSON.parse(line).ts);
}

async function follow(home, match) {
  const info = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8'));
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const controller = new AbortController();
  const res = await fetch(`http://127.0.0.1:${info.port}/api/stream?after=${Number.MAX_SAFE_INTEGER}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  }).catch(() => undefined);
  return { controller, res };
}

async function waitForFile(path, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const text = readFileSync(path, 'utf8');
      if (text.includes('\n')) return text;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${path} did not appear`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function fireDelays() {
  const home = join(work, 'home');
  const dir = repo('fire');
  const script = join(work, 'script.json');
  writeFileSync(script, JSON.stringify({ steps: [{ say: 'NOTHING TO REPORT' }] }));
  // The baseline: a plain dispatch, from the request to the session's first event.
  const plain = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = Date.now();
    const session = JSON.parse(
      await baton(home, ['dispatch', `plain ${i}`, '--agent', 'scripted', '--script', script, '--json'], dir),
    );
    await waitForFile(join(home, 'sessions', session.id, 'events.jsonl'), 30_000);
    plain.push(firstEventAt(home, session.id) - t0);
  }
  // Every 10 seconds (cron's optional seconds field); each run archives itself (nothing to report).
  await baton(
    home,
    [
      'routine',
      'add',
      'tick',
      '--cron',
      '*/10 * * * * *',
      '--agent',
      'scripted',
      '--prompt',
      'anything new?',
      '--script',
      script,
    ],
    dir,
  );
  const delays = [];
  while (delays.length < SAMPLES) {
    const history = JSON.parse(await baton(home, ['routine', 'history', 'tick', '--json'], dir)).runs;
    for (const run of history) {
      if (run.sessionId === null || run.dueAt === null || delays.some((d) => d.id === run.id)) continue;
      try {
        delays.push({ id: run.id, ms: firstEventAt(home, run.sessionId) - Date.parse(run.dueAt) });
      } catch {}
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  await baton(home, ['routine', 'pause', 'tick'], dir);
  const rss =
    Number(
      readFileSync(
        `/proc/${JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8')).pid}/status`,
        'utf8',
      ).match(/VmRSS:\s+(\d+)/)[1],
    ) * 1024;
  await baton(home, ['daemon', 'stop', '--all'], dir);
  return { plain, delays: delays.slice(0, SAMPLES).map((d) => d.ms), rss };
}

try {
  const none = await timerCost(0);
  const many = await timerCost(COUNT);
  const perMinute = (ms) => `${ms.toFixed(2)} ms CPU per minute (one pass a minute when nothing is due)`;
  console.log(
    `routines: timer with ${COUNT} routines: ${perMinute(many.tickMs)}, ${(many.heap / 1024 / 1024).toFixed(1)} MB of heap for the definitions`,
  );
  console.log(
    `routines: timer with none (baseline): ${perMinute(none.tickMs)}; ${COUNT} routines cost ${(many.tickMs - none.tickMs).toFixed(2)} ms more a minute (${((many.tickMs - none.tickMs) / 600).toFixed(4)}% of one core)`,
  );
  const { plain, delays, rss } = await fireDelays();
  console.log(
    `routines: due time → the run's first session event: median ${median(delays)} ms, p95 ${p95(delays)} ms over ${delays.length} runs (supervisor RSS ${(rss / 1024 / 1024).toFixed(0)} MB)`,
  );
  console.log(
    `routines: baseline, baton dispatch → first event: median ${median(plain)} ms, p95 ${p95(plain)} ms; ratio ${(median(delays) / median(plain)).toFixed(2)}×`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
