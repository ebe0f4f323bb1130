#!/usr/bin/env node
// Baton benchmarks: `npm run bench`. Prints figures and ratios against the raw baselines named in
// the issues. Runs against the built dist and the real `baton` binary in a temporary BATON_HOME.
import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { figure, readFigures } from './figures.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const only = process.argv[2];
const work = mkdtempSync(join(tmpdir(), 'baton-bench-'));
const started = [];
// Every process the bench starts carries this mark in its environment (handed down from each
// supervisor to its hosts and agents), so its end can name anything left running.
const MARK = `BATON_BENCH_RUN=${process.pid}`;
process.env.BATON_BENCH_RUN = String(process.pid);
// Dispatches that name no agent run the scripted one, as `baton config set agent scripted` would
// make them (decision 185); without it every section's first dispatch is refused.
process.env.BATON_AGENT ??= 'scripted';
// Every section appends its figures here (bench/figures.mjs); gathered into figures.json at the end.
const RESULTS = join(ROOT, 'bench', 'results');
mkdirSync(RESULTS, { recursive: true });
const FIGURES = join(RESULTS, 'figures.jsonl');
rmSync(FIGURES, { force: true });
process.env.BATON_BENCH_FIGURES = FIGURES;
const sectionsRun = [];

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};

function makeRepo(name, files) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${Math.floor(i / 500)}`);
    if (i % 500 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.txt`), `file ${i}\n`);
  }
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env: gitEnv });
  execFileSync('git', ['add', '.'], { cwd: dir, env: gitEnv });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: dir, env: gitEnv });
  return dir;
}

function baton(home, args, cwd, extraEnv = {}) {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...process.env, BATON_HOME: home, ...extraEnv } },
      (error, stdout, stderr) => {
        if (error) fail(new Error(`baton ${args.join(' ')}: ${stderr}`));
        else done(stdout);
      },
    );
  });
}

function api(home) {
  const info = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8'));
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  return async (method, path, body) => {
    const res = await fetch(`http://127.0.0.1:${info.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p95: at(0.95), min: s[0] };
};
const ms = (x) => `${x.toFixed(1)} ms`;

function memory(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
    return { rss: field('Rss'), pss: field('Pss'), uss: field('Private_Clean') + field('Private_Dirty') };
  } catch {
    return undefined;
  }
}

async function benchDispatch() {
  console.log(
    '\n## Dispatch overhead: `baton dispatch` → agent running in its worktree, vs raw `git worktree add`',
  );
  const rows = [];
  // BATON_BENCH_DISPATCH=small runs the small repository alone (runs taken in turn with another build).
  const repos = [
    ['small repo (10 files)', 10],
    ['20,000-file repo', 20_000],
  ].filter(([, files]) => process.env.BATON_BENCH_DISPATCH !== 'small' || files < 1000);
  for (const [label, files] of repos) {
    const repo = makeRepo(`repo-${files}`, files);
    const home = join(work, `home-dispatch-${files}`);
    await baton(home, ['daemon', 'start'], repo, { BATON_MAX_CONCURRENT: '100' });
    started.push(home);
    const call = api(home);
    const runs = files > 1000 ? 6 : 12;
    const raw = [];
    const rawAdd = (i) => {
      const t0 = performance.now();
      execFileSync(
        'git',
        ['worktree', 'add', '-q', '-b', `raw-${i}`, join(work, `raw-${files}-${i}`), 'HEAD'],
        { cwd: repo, env: gitEnv },
      );
      raw.push(performance.now() - t0);
    };
    const viaApi = [];
    const viaCli = [];
    const burst = [];
    const script = { steps: [{ say: 'running' }] };
    const scriptFile = join(work, 'script.json');
    writeFileSync(scriptFile, JSON.stringify(script));
    const dispatch = async (name) => {
      const t0 = performance.now();
      const { session } = await call('POST', '/api/sessions', {
        prompt: 'bench',
        cwd: repo,
        name,
        options: { script },
      });
      if (!existsSync(join(session.worktree, 'd0', 'f0.txt'))) throw new Error('worktree not checked out');
      return performance.now() - t0;
    };
    for (let i = 0; i < runs; i++) {
      // One dispatch at a time, as a person types them: the API answers once the host reports
      // the agent started (turn.started is on disk by then). Raw and Baton take turns, so both
      // meet the same page cache and the same number of worktrees already on disk.
      await idle(400);
      rawAdd(i);
      await idle(400);
      viaApi.push(await dispatch(`api-${i}`));
    }
    const timings = join(work, `cli-timings-${files}.jsonl`);
    const bare = [];
    for (let i = 0; i < runs; i++) {
      // The whole `baton dispatch` process, Node start-up of the CLI included; a bare Node start
      // in turn, the floor of the CLI's own cost.
      await idle(400);
      bare.push(nodeStartup());
      const t1 = performance.now();
      await baton(home, ['dispatch', 'bench', '--name', `cli-${i}`, '--script', scriptFile], repo, {
        BATON_TIMINGS: timings,
      });
      viaCli.push(performance.now() - t1);
    }
    // A script dispatching back to back: only the first finds a spare host ready.
    for (let i = 0; i < runs; i++) burst.push(await dispatch(`burst-${i}`));
    const r = stats(raw);
    const a = stats(viaApi);
    const c = stats(viaCli);
    const b = stats(burst);
    const goal = 1.2 * r.median + 100;
    rows.push({ label, raw: r, api: a, cli: c, goal });
    const key = files > 1000 ? '20k' : 'small';
    const floorName = 'raw git worktree add';
    figure({
      section: 'dispatch',
      name: `dispatch api ${key}`,
      value: a.median,
      unit: 'ms',
      floor: r.median,
      floorName,
      goal,
    });
    figure({
      section: 'dispatch',
      name: `dispatch api burst ${key}`,
      value: b.median,
      unit: 'ms',
      floor: r.median,
      floorName,
    });
    figure({
      section: 'dispatch',
      name: `dispatch cli ${key}`,
      value: c.median,
      unit: 'ms',
      floor: r.median,
      floorName,
    });
    // The machine is shared: its load says how far one run's figures compare with another's.
    console.log(
      `${label}: raw git worktree add median ${ms(r.median)} (p95 ${ms(r.p95)}); load average ${loadAverage()}`,
    );
    console.log(
      `  baton via API  median ${ms(a.median)} (p95 ${ms(a.p95)})  = ${(a.median / r.median).toFixed(2)}× raw; goal ≤ 1.2×raw+100 ms = ${ms(goal)}: ${a.median <= goal ? 'MET' : 'NOT MET'}`,
    );
    console.log(
      `  baton via API, back-to-back burst median ${ms(b.median)} (p95 ${ms(b.p95)}) = ${(b.median / r.median).toFixed(2)}× raw`,
    );
    console.log(
      `  baton CLI      median ${ms(c.median)} (p95 ${ms(c.p95)})  = ${(c.median / r.median).toFixed(2)}× raw (includes Node start-up of the CLI: ${ms(nodeStartup())})`,
    );
    // The supervisor's own timings of each dispatch's steps (its log), and the CLI's of itself.
    // The API's dispatches, one at a time as a person makes them (the burst's find no spare).
    const supervisorSteps = dispatchSteps(home, 'api-');
    const bareNode = stats(bare).median;
    console.log(
      `  steps (supervisor's own timings, median and p95 over ${supervisorSteps.count} dispatches, ${supervisorSteps.spare} of them taken by the spare host):`,
    );
    for (const [step, value] of Object.entries(supervisorSteps.steps)) {
      const p95 = supervisorSteps.p95[step] ?? value;
      console.log(
        `    ${step.padEnd(22)} ${ms(value)} (${(value / r.median).toFixed(2)}× raw), p95 ${ms(p95)}`,
      );
      figure({
        section: 'dispatch',
        name: `dispatch step ${step} ${key}`,
        value: Math.max(value, 0.5),
        unit: 'ms',
        floor: r.median,
        floorName,
      });
    }
    const cliOwn = readFileSync(timings, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const boot = stats(cliOwn.map((t) => t.boot)).median;
    const run = stats(cliOwn.map((t) => t.run)).median;
    const cost = Math.max(1, c.median - a.median);
    console.log(
      `  CLI's own cost: ${ms(cost)} over the API's (goal ≤ one bare node start, ${ms(bareNode)}: ${cost <= bareNode ? 'MET' : 'NOT MET'}); reaching main ${ms(boot)}, the command ${ms(run)} (the API's answer included)`,
    );
    const floorNode = 'bare node -e 0';
    figure({
      section: 'dispatch',
      name: `dispatch cli own cost ${key}`,
      value: cost,
      unit: 'ms',
      floor: bareNode,
      floorName: floorNode,
      goal: 1,
    });
    figure({
      section: 'dispatch',
      name: `dispatch cli reaching main ${key}`,
      value: boot,
      unit: 'ms',
      floor: bareNode,
      floorName: floorNode,
    });
    await baton(home, ['daemon', 'stop', '--all'], repo);
  }
  return rows;
}

/**
 * Medians of each step of the dispatches the supervisor logged ('dispatched', and its host's
 * 'host started'): where the time of a dispatch goes, by its own clock.
 */
function dispatchSteps(home, prefix) {
  const lines = readFileSync(join(home, 'supervisor.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const hosts = new Map(lines.filter((l) => l.msg === 'host started').map((l) => [l.session, l.steps ?? {}]));
  const per = new Map();
  let count = 0;
  for (const l of lines) {
    if (l.msg !== 'dispatched' || !l.name.startsWith(prefix)) continue;
    count++;
    const host = hosts.get(l.session) ?? {};
    const entries = { ...l };
    for (const [k, v] of Object.entries(host)) if (typeof v === 'number') entries[`host ${k}`] = v;
    for (const [k, v] of Object.entries(entries)) {
      if (typeof v !== 'number' || ['time', 'level', 'service', 'msg', 'session', 'name'].includes(k))
        continue;
      if (!per.has(k)) per.set(k, []);
      per.get(k).push(v);
    }
  }
  const steps = {};
  const p95 = {};
  for (const [k, xs] of per) {
    steps[k] = stats(xs).median;
    p95[k] = stats(xs).p95;
  }
  const spare = lines.filter(
    (l) => l.msg === 'dispatched' && l.name.startsWith(prefix) && hosts.get(l.session)?.spare === true,
  ).length;
  return { count, steps, p95, spare };
}

/** The machine's load average over the last minute (the bench shares its cores). */
function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  } catch {
    return 'unknown';
  }
}

/** A pause between dispatches, as between a person's commands (not a wait for a result). */
function idle(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function nodeStartup() {
  const t0 = performance.now();
  execFileSync(process.execPath, ['-e', '0']);
  return performance.now() - t0;
}

async function benchFifty() {
  const N = 50;
  const SAYS = 2000;
  console.log(
    `\n## ${N} scripted sessions at once (${SAYS} events each, written while the supervisor is down, then ingested)`,
  );
  const repo = makeRepo('repo-fifty', 10);
  const home = join(work, 'home-fifty');
  const env = { BATON_MAX_CONCURRENT: String(N) };
  await baton(home, ['daemon', 'start'], repo, env);
  started.push(home);
  const call = api(home);
  const steps = [
    { ask: 'go?' },
    ...Array.from({ length: SAYS }, (_, i) => ({ say: `line ${i}` })),
    { ask: 'done?' },
  ];
  const sessions = [];
  for (let i = 0; i < N; i++) {
    const { session } = await call('POST', '/api/sessions', {
      prompt: 'fifty',
      cwd: repo,
      name: `s${i}`,
      options: { script: { steps } },
    });
    sessions.push(session);
  }
  await waitFor(
    async () => (await call('GET', '/api/sessions')).sessions.every((s) => s.state === 'needs_input'),
    300_000,
  );
  const supervisorPid = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8')).pid;
  const supervisorMem = memory(supervisorPid);
  const hostMem = (await call('GET', '/api/sessions')).sessions.map((s) => memory(s.hostPid)).filter(Boolean);

  // Stop the supervisor alone (`--all` ends the hosts too); the hosts go on and write their events
  // to disk, within the ten minutes a host waits for a supervisor to come back.
  await baton(home, ['daemon', 'stop'], repo);
  const { sendToHost } = await import(join(ROOT, 'dist/sessions/host-client.js'));
  const { sessionPaths } = await import(join(ROOT, 'dist/shared/paths.js'));
  const { readLog } = await import(join(ROOT, 'dist/sessions/event-log.js'));
  const tWrite = performance.now();
  await Promise.all(
    sessions.map((s) => sendToHost(sessionPaths(home, s.id).socket, { op: 'reply', text: 'go' })),
  );
  // Each session's writing ends with its second question.
  await waitFor(
    () =>
      sessions.every((s) =>
        readLog(sessionPaths(home, s.id).events).events.some(
          (e) => e.type === 'question.asked' && e.text === 'done?',
        ),
      ),
    300_000,
  );
  const writeMs = performance.now() - tWrite;
  const onDisk = sessions.reduce((n, s) => n + readLog(sessionPaths(home, s.id).events).events.length, 0);

  // Restart: the supervisor re-attaches and ingests everything it missed before it reports ready.
  const tStart = performance.now();
  await baton(home, ['daemon', 'start'], repo, env);
  const startMs = performance.now() - tStart;
  const log = readFileSync(join(home, 'supervisor.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const reattach = log.filter((l) => l.msg === 're-attached').at(-1);
  const call2 = api(home);
  const listed = (await call2('GET', '/api/sessions')).sessions;
  const stored = listed.reduce((n, s) => n + s.lastSeq, 0);
  let count = 0;
  let gaps = 0;
  for (const s of listed) {
    const { events } = await call2('GET', `/api/sessions/${s.id}/events?after=0`);
    count += events.length;
    events.forEach((e, i) => (gaps += e.seq === i + 1 ? 0 : 1));
  }
  const rate = reattach.eventsIngested / (reattach.ms / 1000);
  const raw = rawSqliteRate(reattach.eventsIngested);

  const avg = (xs, k) => xs.reduce((n, x) => n + x[k], 0) / xs.length;
  figure({
    section: 'fifty',
    name: 'ingestion after a restart',
    value: rate,
    unit: 'events/s',
    floor: raw,
    floorName: 'raw better-sqlite3 insert',
    better: 'higher',
    goal: 0.5,
  });
  const node = nodeStartup();
  figure({
    section: 'fifty',
    name: 'daemon start with 50 sessions to re-attach',
    value: startMs,
    unit: 'ms',
    floor: node,
    floorName: 'bare node -e 0',
  });
  figure({
    section: 'fifty',
    name: 'host rss',
    value: avg(hostMem, 'rss'),
    unit: 'MB',
    floor: bareNodeRss(),
    floorName: 'bare node RSS',
  });
  console.log(
    `supervisor memory: RSS ${supervisorMem.rss.toFixed(1)} MB, PSS ${supervisorMem.pss.toFixed(1)} MB`,
  );
  console.log(
    `session host memory (mean of ${hostMem.length}): RSS ${avg(hostMem, 'rss').toFixed(1)} MB, PSS ${avg(hostMem, 'pss').toFixed(1)} MB, private ${avg(hostMem, 'uss').toFixed(1)} MB; goal RSS ≤ 40 MB: ${avg(hostMem, 'rss') <= 40 ? 'MET' : 'NOT MET'} (a bare \`node -e 0\` is ${bareNodeRss().toFixed(1)} MB RSS here)`,
  );
  console.log(`hosts wrote ${onDisk} events in ${ms(writeMs)} with the supervisor down`);
  console.log(
    `ingested on restart: ${reattach.eventsIngested} events in ${reattach.ms} ms = ${Math.round(rate)} events/s (goal ≥ 20,000: ${rate >= 20_000 ? 'MET' : 'NOT MET'}); raw better-sqlite3 insert of the same rows: ${Math.round(raw)} events/s → ${(rate / raw).toFixed(2)}× raw`,
  );
  // CPU time moves far less with the machine's load than wall time (decision 448).
  if (reattach.cpuMs !== undefined)
    console.log(
      `  in CPU time: the supervisor's re-attach ${reattach.cpuMs} ms (listeners included${reattach.listenersMs === undefined ? '' : `, who heard it in ${reattach.listenersMs} ms after`}), the raw insert ${Math.round(rawSqliteRate.cpuMs)} ms → ${(rawSqliteRate.cpuMs / reattach.cpuMs).toFixed(2)}× raw`,
    );
  console.log(`daemon start incl. re-attach: ${ms(startMs)}`);
  console.log(
    `lost events: ${onDisk - count} (on disk ${onDisk}, stored ${count}, sum of last seq ${stored}); out-of-sequence or duplicate: ${gaps}`,
  );
  await baton(home, ['daemon', 'stop', '--all'], repo);
  for (const s of listed)
    if (s.hostPid)
      try {
        process.kill(s.hostPid, 'SIGTERM');
      } catch {}
}

/** The raw baseline: the same number of rows inserted by better-sqlite3 in one transaction. */
function rawSqliteRate(n) {
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(join(work, 'raw.db'));
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
  const c1 = process.cpuUsage(c0);
  const rate = n / ((performance.now() - t0) / 1000);
  db.close();
  rawSqliteRate.cpuMs = (c1.user + c1.system) / 1000;
  return rate;
}

function bareNodeRss() {
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      "setTimeout(()=>console.log(require('fs').readFileSync('/proc/self/status','utf8').match(/VmRSS:\\s+(\\d+)/)[1]),200)",
    ],
    { encoding: 'utf8' },
  );
  return Number(out) / 1024;
}

/** Benchmarks poll other processes' progress; tests wait on events instead. */
async function waitFor(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('benchmark timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function benchCli() {
  const runs = Number(process.env.BATON_BENCH_CLI_RUNS ?? 10);
  console.log(
    `\n## Read-only CLI commands against a running supervisor vs a bare \`node -e 0\` (median of ${runs}, taken in turn; goal ≤ 1.5× in wall time and peak RSS)`,
  );
  const repo = makeRepo('repo-cli', 10);
  const home = join(work, 'home-cli');
  await baton(home, ['daemon', 'start'], repo);
  started.push(home);
  const call = api(home);
  const { session } = await call('POST', '/api/sessions', {
    prompt: 'bench',
    cwd: repo,
    name: 'cli',
    options: { script: { steps: [{ say: 'hello' }, { write: { path: 'a.txt', content: 'a\n' } }] } },
  });
  await waitFor(
    async () => (await call('GET', `/api/sessions/${session.id}`)).session.state === 'ready_for_review',
    120_000,
  );
  const cli = await import(join(ROOT, 'bench', 'cli.mjs'));
  const commands = [['ls'], ['ls', '--json'], ['peek', 'cli'], ['logs', 'cli'], ['daemon', 'status']];
  const result = cli.run({ bin: BIN, env: { ...process.env, BATON_HOME: home }, cwd: repo, commands, runs });
  cli.print(result);
  for (const row of result.rows) {
    const name = row.label.replace(/ cli$/, '');
    figure({
      section: 'cli',
      name: `${name} wall`,
      value: row.wall,
      unit: 'ms',
      floor: result.base.wall,
      floorName: 'bare node -e 0',
      goal: 1.3,
    });
    figure({
      section: 'cli',
      name: `${name} peak rss`,
      value: row.rss,
      unit: 'MB',
      floor: result.base.rss,
      floorName: 'bare node -e 0',
      goal: 1.5,
    });
  }
  await baton(home, ['daemon', 'stop', '--all'], repo);
  firstCommand(repo, runs);
}

/**
 * The first command on a new machine: `baton ls` in an empty BATON_HOME starts the supervisor and
 * waits for its answer. Also the supervisor's own time from its process start to listening (its
 * log), against a bare Node start taken in turn.
 */
function firstCommand(repo, runs) {
  const first = [];
  const listening = [];
  const serving = [];
  const bare = [];
  for (let i = 0; i < Math.min(runs, 5); i++) {
    const home = join(work, `home-first-${i}`);
    started.push(home);
    bare.push(nodeStartup());
    const t0 = performance.now();
    execFileSync(process.execPath, [BIN, 'ls'], { cwd: repo, env: { ...process.env, BATON_HOME: home } });
    first.push(performance.now() - t0);
    const log = readFileSync(join(home, 'supervisor.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const listened = log.find((l) => l.msg === 'listening');
    if (listened?.sinceStart !== undefined) listening.push(listened.sinceStart);
    const served = log.find((l) => l.msg === 'serving; catching up');
    if (served?.sinceStart !== undefined) serving.push(served.sinceStart);
    execFileSync(process.execPath, [BIN, 'daemon', 'stop', '--all'], {
      cwd: repo,
      env: { ...process.env, BATON_HOME: home },
    });
  }
  const node = stats(bare).median;
  const f = stats(first).median;
  console.log(
    `first \`baton ls\` in a new home (starts the supervisor): median ${ms(f)} = ${(f / node).toFixed(1)}× a bare node start (${ms(node)})`,
  );
  figure({
    section: 'cli',
    name: 'first command (starts the supervisor)',
    value: f,
    unit: 'ms',
    floor: node,
    floorName: 'bare node -e 0',
  });
  if (listening.length > 0) {
    const l = stats(listening).median;
    console.log(
      `  the supervisor listening after its process started: median ${ms(l)} (goal: answering within 1 s)`,
    );
    figure({
      section: 'cli',
      name: 'supervisor listening after its start',
      value: l,
      unit: 'ms',
      floor: node,
      floorName: 'bare node -e 0',
      goal: 1000,
    });
  }
  if (serving.length > 0) {
    const v = stats(serving).median;
    console.log(`  the supervisor serving every request after its process started: median ${ms(v)}`);
    figure({
      section: 'cli',
      name: 'supervisor serving after its start',
      value: v,
      unit: 'ms',
      floor: node,
      floorName: 'bare node -e 0',
      goal: 1000,
    });
  }
}

/** Whether the section `name` runs this time (all, or the one named); noted for figures.json. */
function section(name) {
  if (only && only !== name) return false;
  if (!sectionsRun.includes(name)) sectionsRun.push(name);
  return true;
}

/** A bench module run in this process: `run({ log })`, printed by its `print` when it has one. */
async function inProcess(name) {
  if (!section(name)) return;
  await guarded(name, async () => {
    const bench = await import(join(ROOT, 'bench', `${name}.mjs`));
    const result = await bench.run({ log: (line) => console.log(line) });
    if (typeof bench.print === 'function') bench.print(result);
  });
}

/** Runs a section; its failure is printed and remembered (the run exits 1), and the next section runs. */
const failed = [];
async function guarded(name, run) {
  try {
    await run();
  } catch (error) {
    failed.push(name);
    console.error(`bench: section ${name} failed: ${error.stack ?? error.message}`);
  }
}

try {
  console.log(
    `# Baton benchmarks (${new Date().toISOString()}, node ${process.version}, ${(await import('node:os')).availableParallelism()} cores)`,
  );
  // One section's failure (a wait that ran out on a busy machine) is reported and the run goes on:
  // the sections after it still measure, and the run exits 1.
  if (section('cli')) await guarded('cli', benchCli);
  if (section('dispatch')) await guarded('dispatch', benchDispatch);
  if (section('fifty')) await guarded('fifty', benchFifty);
  // Modules with a run({ log }); those that also print their own table export print.
  await inProcess('radar');
  // Standalone scripts, each printing its own figures and baselines.
  for (const [name, script, args] of [
    ['review', 'review.mjs', ['10', '20']],
    ['environments', 'environments.mjs', []],
    ['environments', 'environments-ready.mjs', []],
    ['routines', 'routines.mjs', []],
    ['tasks', 'tasks.mjs', []],
    ['mcp', 'mcp.mjs', []],
    ['capacity', 'capacity.mjs', []],
    ['policy', 'policy.mjs', []],
    ['discards', 'discards.mjs', []],
    ['fresh', 'fresh.mjs', []],
    ['attempts', 'attempts.mjs', []],
    ['cluster', 'cluster.mjs', []],
  ]) {
    if (!section(name)) continue;
    await guarded(name, () =>
      execFileSync(process.execPath, [join(ROOT, 'bench', script), ...args], { cwd: ROOT, stdio: 'inherit' }),
    );
  }
  for (const name of ['board', 'watchdog', 'search', 'handoff', 'kanban', 'web', 'provenance', 'windows'])
    await inProcess(name);
} finally {
  for (const home of started) {
    const file = join(home, 'supervisor.json');
    if (existsSync(file))
      try {
        process.kill(JSON.parse(readFileSync(file, 'utf8')).pid, 'SIGTERM');
      } catch {}
    const sessions = join(home, 'sessions');
    if (existsSync(sessions))
      for (const id of readdirSync(sessions)) {
        const host = join(sessions, id, 'host.json');
        if (existsSync(host))
          try {
            process.kill(JSON.parse(readFileSync(host, 'utf8')).pid, 'SIGKILL');
          } catch {}
      }
  }
  try {
    // A git process a failed section left running may still be writing there.
    rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  } catch (error) {
    console.error(`bench: could not remove ${work}: ${error.message}`);
  }
  const os = await import('node:os');
  const out = join(RESULTS, 'figures.json');
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cores: os.availableParallelism(),
        sections: sectionsRun,
        figures: readFigures(FIGURES),
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`bench: figures in ${out}; compare with \`npm run bench:compare\``);
  if (failed.length > 0) {
    console.error(`bench: ${failed.length} section(s) failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
  const left = leftBehind();
  if (left.length > 0) {
    console.error(
      `bench: ${left.length} process(es) left behind (now killed):\n${left.map((p) => `  ${p.pid} ${p.cmdline}`).join('\n')}`,
    );
    for (const { pid } of left)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    process.exitCode = 1;
  } else console.log('bench: no process left behind');
}

/** Processes still running with this run's mark (Linux: /proc), zombies aside. */
function leftBehind() {
  if (!existsSync('/proc/self/environ')) return [];
  const found = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(MARK)) continue;
      if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) continue;
      found.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
    } catch {}
  }
  return found;
}
