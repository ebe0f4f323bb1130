// Watchdog benchmark (`node bench/run.mjs watchdog`, after a build).
//
// 1. Budget stop latency: real supervisor, scripted sessions reporting $0.01 of usage every 20 ms
//    against a $0.05 session budget. Latency is from the usage event that crossed the limit to the
//    session's needs_input (both stamped by the session's host), and the overshoot is the tokens
//    reported after the crossing. Raw baseline in the same run: the time from the same crossing
//    event being written to a client of the session's stream receiving it (ingestion alone, the
//    floor any reaction sits on).
// 2. The loop rule's corpus: false alarms and misses, before and after decision 151 (watchdog-loops.mjs).
// 3. Overhead on ingestion: 20,000 events of a busy session (tools, failures, usage, messages)
//    ingested from events.jsonl into SQLite by the real ingestor, with and without the watchdog
//    observing every stored event.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loopCorpus } from './watchdog-loops.mjs';
import { figure } from './figures.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const SESSIONS = Number(process.env.BATON_BENCH_WATCHDOG_SESSIONS ?? 10);
const EVENTS = 20_000;
const RUNS = 5;

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1], n: s.length };
};

export async function run({ log }) {
  const work = mkdtempSync(join(tmpdir(), 'baton-bench-watchdog-'));
  try {
    const part = process.env.BATON_BENCH_WATCHDOG_PART;
    if (part === undefined || part === 'loops') await loopCorpus(log);
    if (part === 'loops') return;
    if (part !== 'ingest') await stopLatency(work, log);
    await ingestionOverhead(work, log);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function stopLatency(work, log) {
  const home = join(work, 'home');
  const repo = join(work, 'repo');
  const env = {
    ...process.env,
    BATON_HOME: home,
    BATON_NOTIFY: 'off',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
  };
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env });
  execFileSync('git', ['add', '.'], { cwd: repo, env });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo, env });
  const baton = (args) =>
    new Promise((done, fail) =>
      execFile(process.execPath, [BIN, ...args], { cwd: repo, env }, (error, stdout, stderr) =>
        error ? fail(new Error(`baton ${args.join(' ')}: ${stderr}`)) : done(stdout),
      ),
    );
  // A moment first, so the stream is followed before the first report.
  const steps = [{ sleep: 500 }];
  for (let i = 0; i < 40; i++) steps.push({ usage: { input: 1000, output: 100, usd: 0.01 } }, { sleep: 20 });
  steps.push({ sleep: 60_000 });
  const script = join(work, 'spend.json');
  writeFileSync(script, JSON.stringify({ steps }));
  const { SupervisorClient } = await import(join(ROOT, 'dist/cli/client.js'));
  try {
    await baton(['budget', 'set', '--session', '0.05usd']);
    const info = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8'));
    const token = readFileSync(join(home, 'token'), 'utf8').trim();
    const client = new SupervisorClient(`http://127.0.0.1:${info.port}`, token, repo);
    const latency = [];
    const floor = [];
    const overshoot = [];
    for (let i = 0; i < SESSIONS; i++) {
      const name = `s${i}`;
      const received = new Map();
      const controller = new AbortController();
      let paused;
      await baton(['dispatch', 'spend', '--name', name, '--script', script]);
      const following = client
        .follow(
          name,
          0,
          (event) => {
            received.set(event.seq, Date.now());
            if (event.type === 'state.changed' && event.to === 'needs_input') {
              paused = event;
              controller.abort();
            }
          },
          controller.signal,
        )
        .catch(() => undefined);
      await following;
      if (paused === undefined) throw new Error(`${name} was never paused`);
      const { events } = await client.call('GET /api/sessions/:ref/events', {
        params: { ref: name },
        query: { after: 0 },
      });
      const usage = events.filter((e) => e.type === 'usage.reported');
      const crossing = usage[4];
      latency.push(Date.parse(paused.ts) - Date.parse(crossing.ts));
      floor.push(received.get(crossing.seq) - Date.parse(crossing.ts));
      overshoot.push(
        usage
          .filter((e) => e.seq > crossing.seq && e.seq < paused.seq)
          .reduce((sum, e) => sum + e.inputTokens + e.outputTokens, 0),
      );
      await baton(['stop', name]);
    }
    const l = stats(latency);
    const f = stats(floor);
    figure({
      section: 'watchdog',
      name: 'budget stop latency',
      value: Math.max(l.p50, 1),
      unit: 'ms',
      floor: Math.max(1, f.p50),
      floorName: 'crossing event seen on the stream',
      goal: 1000,
    });
    const o = stats(overshoot);
    log(
      `watchdog: budget stop latency over ${SESSIONS} sessions (usage every 20 ms): p50 ${l.p50} ms, p95 ${l.p95} ms, max ${l.max} ms (goal under 1000 ms)`,
    );
    log(
      `watchdog:   raw floor (crossing event written → seen on the session's stream): p50 ${f.p50.toFixed(0)} ms, p95 ${f.p95.toFixed(0)} ms; stop p50 is ${(l.p50 / Math.max(1, f.p50)).toFixed(1)}× the floor`,
    );
    log(
      `watchdog:   overshoot after the crossing report: p50 ${o.p50} tokens, max ${o.max} tokens (1,100 tokens per report)`,
    );
  } finally {
    await baton(['daemon', 'stop', '--all']).catch(() => undefined);
  }
}

async function ingestionOverhead(work, log) {
  const { openDb } = await import(join(ROOT, 'dist/store/db.js'));
  const { SessionStore } = await import(join(ROOT, 'dist/store/sessions.js'));
  const { WorkspaceBus } = await import(join(ROOT, 'dist/bus/index.js'));
  const { Ingestor } = await import(join(ROOT, 'dist/sessions/ingest.js'));
  const { UsageTracker } = await import(join(ROOT, 'dist/usage/index.js'));
  const { Watchdog } = await import(join(ROOT, 'dist/watchdog/index.js'));
  const { sessionPaths } = await import(join(ROOT, 'dist/shared/paths.js'));
  const { makeEvent } = await import(join(ROOT, 'dist/events/index.js'));
  const lines = [];
  const at = Date.parse('2026-11-23T09:00:00Z');
  for (let seq = 1; seq <= EVENTS; seq++) {
    const ts = new Date(at + seq * 10).toISOString();
    const i = seq % 5;
    const id = `t${Math.floor(seq / 5)}`;
    const body =
      i === 0
        ? { type: 'tool.started', toolId: id, tool: 'shell', kind: 'run', input: `npm test -- ${seq % 7}` }
        : i === 1
          ? {
              type: 'tool.finished',
              toolId: id,
              tool: 'shell',
              ok: seq % 3 !== 0,
              exitCode: seq % 3 === 0 ? 1 : 0,
            }
          : i === 2
            ? { type: 'usage.reported', inputTokens: 1200, outputTokens: 80, model: 'gpt-5.5' }
            : i === 3
              ? {
                  type: 'tool.started',
                  toolId: `${id}e`,
                  tool: 'apply_patch',
                  kind: 'edit',
                  input: `src/f${seq % 50}.ts`,
                  files: [`src/f${seq % 50}.ts`],
                }
              : { type: 'message.added', role: 'assistant', text: `step ${seq}` };
    lines.push(JSON.stringify(makeEvent(seq, body, new Date(ts))));
  }
  const file = lines.join('\n') + '\n';
  const once = async (watched, run) => {
    let dog;
    const home = join(work, `ingest-${watched ? 'w' : 'raw'}-${run}`);
    mkdirSync(home, { recursive: true });
    const db = openDb(join(home, 'baton.db'));
    const store = new SessionStore(db);
    const project = store.ensureProject(join(home, 'repo'));
    store.insert(
      {
        id: 'sess',
        project_id: project.id,
        name: 'busy',
        agent: 'codex',
        prompt: 'p',
        model: 'gpt-5.5',
        permission_mode: 'default',
        options_json: '{}',
        branch: 'b',
        base_ref: 'main',
        base_commit: 'x',
        worktree: join(home, 'wt'),
      },
      'working',
    );
    const paths = sessionPaths(home, 'sess');
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.events, file);
    const bus = new WorkspaceBus(db);
    const ingestor = new Ingestor(home, db, store, bus);
    if (watched) {
      const sessions = {
        get: (id) => store.get(id),
        list: () => store.listLive(),
        on: (_, listener) => ingestor.on('event', listener),
        off: (_, listener) => ingestor.off('event', listener),
        pause: async () => undefined,
        stop: async () => undefined,
        reply: async () => undefined,
        addGate: () => () => undefined,
        schedule: async () => undefined,
      };
      dog = new Watchdog({ db, bus, sessions, usage: new UsageTracker(db) });
      // Both read and write the store: done before the run is timed, and before the store closes.
      await dog.start();
      await dog.budgets.set({ session: '1000000usd', day: '1000000usd', window: ['5h:1000000usd'] });
    }
    const t0 = performance.now();
    const stored = ingestor.ingest('sess');
    const ms = performance.now() - t0;
    // Its listeners and reads stop before the store they use closes.
    dog?.close();
    db.close();
    if (stored !== EVENTS) throw new Error(`ingested ${stored} of ${EVENTS}`);
    return ms;
  };
  const raw = [];
  const watched = [];
  for (let run = 0; run < RUNS; run++) {
    raw.push(await once(false, run));
    watched.push(await once(true, run));
  }
  const r = stats(raw);
  const w = stats(watched);
  const rate = (ms) => Math.round(EVENTS / (ms / 1000)).toLocaleString('en');
  figure({
    section: 'watchdog',
    name: 'watchdog on ingestion',
    value: w.p50,
    unit: 'ms',
    floor: r.p50,
    floorName: 'the same ingestion without the watchdog',
  });
  log(
    `watchdog: ingestion of ${EVENTS.toLocaleString('en')} events (${RUNS} runs, p50): without the watchdog ${r.p50.toFixed(0)} ms (${rate(r.p50)} events/s), with it ${w.p50.toFixed(0)} ms (${rate(w.p50)} events/s): ${(w.p50 / r.p50).toFixed(2)}× the time`,
  );
}
