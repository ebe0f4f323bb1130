#!/usr/bin/env node
/**
 * Web dashboard figures (decision 9, "Web dashboard"): with 100 sessions and 1,000,000 stored events,
 * the p95 of board load, switching to a session, first transcript paint, and event-to-page latency.
 * Goal: p95 < 100 ms each. Runs against the built dist and Debian Chromium (playwright-core).
 *
 * Board load is timed to the moment the browser presents the last card of the first screen
 * (Element Timing), and set against two baselines in the same browser: the same page's markup
 * served as a static file by a bare HTTP server (the browser's own cost of that board), and a
 * one-line page (the floor of any page load here).
 *
 *   node bench/web.mjs [--sessions 100] [--events 1000000] [--runs 30] [--json]
 *
 * `run(options)` is exported for bench/run.mjs; it returns the figures instead of printing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ensureChromium } from '../scripts/chromium.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const GOAL_MS = 100;
const BOARD_LOAD = 'board load (navigation → first screen of cards on screen)';
/** Baselines are indented under the figure they are for, and have no goal of their own. */
const STATIC_MARKUP = '  baseline: the same markup as a static file, no script';
const ONE_LINE_PAGE = '  baseline: a one-line page';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function run({ sessions = 100, events = 1_000_000, runs = 30, log = () => undefined } = {}) {
  if (!existsSync(join(DIST, 'server', 'main.js')) || !existsSync(join(ROOT, 'web', 'dist', 'index.html'))) {
    throw new Error('Build first: npm run build');
  }
  const found = await ensureChromium({ install: false });
  if (!found.ok) throw new Error(found.message);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-bench-web-')));
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  let supervisor;
  let browser;
  try {
    const seeded = await seed(home, root, sessions, events, log);
    log(`seeded ${sessions} sessions and ${seeded.events.toLocaleString('en-US')} events in ${seeded.ms} ms`);
    const repo = makeRepo(root);
    supervisor = await startSupervisor(home, root);
    const api = apiClient(supervisor.port, readFileSync(join(home, 'token'), 'utf8').trim());
    browser = await chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS, headless: true });

    const figures = {};
    figures['GET /api/sessions (board data)'] = await timeMany(runs, () => api.get('/api/sessions'));
    const busiest = seeded.ids[0];
    figures['GET session + transcript page (API)'] = await timeMany(runs, () =>
      Promise.all([api.get(`/api/sessions/${busiest}`), api.get(`/api/sessions/${busiest}/transcript`)]),
    );

    const page = await loggedInPage(browser, api, sessions);
    const loads = await timeMany(runs, () => boardLoad(page), true);
    const boardHtml = await (await page.context().request.get(`${api.base}/`)).text();
    const staticLoads = await staticBaseline(
      browser,
      boardHtml.replace(/<script type="module"[^>]*><\/script>/, ''),
      runs,
    );
    const trivialLoads = await staticBaseline(
      browser,
      '<!doctype html><title>t</title><p class="card-name">Hello</p>',
      runs,
    );
    figures[BOARD_LOAD] = loads.map((l) => l.firstScreen);
    figures[STATIC_MARKUP] = staticLoads.map((l) => l.firstScreen);
    figures[ONE_LINE_PAGE] = trivialLoads.map((l) => l.firstScreen);
    figures[`board load (navigation → all ${sessions} cards in the page, next frame)`] = loads.map(
      (l) => l.all,
    );
    const switching = [];
    const paint = [];
    for (let i = 0; i < runs; i++) {
      const id = seeded.ids[i % seeded.ids.length];
      const t = await switchToSession(page, id);
      switching.push(t.header);
      paint.push(t.transcript);
    }
    figures['switch to a session (click → header painted)'] = switching;
    figures['first transcript paint (click → events painted)'] = paint;
    figures['event → open page (event ts → painted)'] = await eventToPage(
      page,
      api,
      repo,
      Math.max(runs, 40),
    );
    const summary = summarize(figures);
    const ratio = (a, b) => round(summary[a].p50 / summary[b].p50);
    const ratios = {
      'board load / same markup as a static file (p50)': ratio(BOARD_LOAD, STATIC_MARKUP),
      'board load / one-line page (p50)': ratio(BOARD_LOAD, ONE_LINE_PAGE),
    };
    return { sessions, events: seeded.events, goalMs: GOAL_MS, figures: summary, ratios };
  } finally {
    await browser?.close().catch(() => undefined);
    if (supervisor) {
      try {
        process.kill(supervisor.pid, 'SIGTERM');
      } catch {
        // gone already
      }
      await supervisor.exited;
    }
    killHosts(home);
    rmSync(root, { recursive: true, force: true });
  }
}

/** Inserts sessions and events straight into a fresh store, one transaction: no agents needed. */
export async function seed(home, root, sessionCount, eventCount, log) {
  const started = Date.now();
  const { openDb } = await import(join(DIST, 'store', 'db.js'));
  const { SessionStore } = await import(join(DIST, 'store', 'sessions.js'));
  const db = openDb(join(home, 'baton.db'));
  const store = new SessionStore(db);
  const project = store.ensureProject(join(root, 'seeded-repo'));
  // No `queued`: the supervisor would try to start those. Seeded working ones have no host and stay put.
  const states = ['working', 'needs_input', 'ready_for_review', 'completed', 'failed', 'stopped'];
  const perSession = Math.floor(eventCount / sessionCount);
  const insert = db.prepare(
    'INSERT INTO events (session_id, seq, ts, type, body_json) VALUES (?, ?, ?, ?, ?)',
  );
  const ids = [];
  const t0 = Date.now() - 3600_000;
  db.transaction(() => {
    for (let s = 0; s < sessionCount; s++) {
      const id = `bench${String(s).padStart(5, '0')}`;
      ids.push(id);
      const name = `session-${s}`;
      store.insert(
        {
          id,
          project_id: project.id,
          name,
          agent: 'scripted',
          prompt: `Task ${s}: refactor module ${s} and keep the tests green`,
          model: null,
          permission_mode: 'default',
          options_json: '{}',
          branch: `baton/${name}`,
          base_ref: 'main',
          base_commit: '0'.repeat(40),
          worktree: join(root, 'no-worktree', name),
        },
        'queued',
      );
      for (let seq = 1; seq <= perSession; seq++) {
        const body = syntheticEvent(seq);
        const event = { v: 1, seq, ts: new Date(t0 + seq * 10).toISOString(), ...body };
        insert.run(id, seq, event.ts, body.type, JSON.stringify(event));
      }
      const state = states[s % states.length];
      store.applyProjection(id, {
        state,
        reason:
          state === 'needs_input' ? { kind: 'question', text: `Question from session ${s}?` } : undefined,
        activity: state === 'working' ? `running Bash: npm test -- module-${s}` : 'turn finished',
        lastSeq: perSession,
        offset: 0,
        inputTokens: 1000 * s,
        outputTokens: 100 * s,
        costUsd: s / 100,
        agentSessionId: null,
        lastEventAt: new Date(t0 + perSession * 10).toISOString(),
      });
    }
  })();
  db.close();
  log(`(${perSession} events per session)`);
  return { ids, events: perSession * sessionCount, ms: Date.now() - started };
}

function syntheticEvent(seq) {
  switch (seq % 5) {
    case 0:
      return {
        type: 'message.added',
        role: 'assistant',
        text: `Step ${seq}: I looked at the module and changed the watcher to debounce events.`,
      };
    case 1:
      return {
        type: 'tool.started',
        toolId: `t${seq}`,
        tool: 'Bash',
        input: `npm test -- --grep case-${seq}`,
      };
    case 2:
      return {
        type: 'tool.finished',
        toolId: `t${seq - 1}`,
        tool: 'Bash',
        ok: true,
        exitCode: 0,
        output: `✓ case-${seq} (12 ms)\n1 passing`,
      };
    case 3:
      return {
        type: 'thinking.added',
        text: 'Consider the edge case where the file disappears between events.',
      };
    default:
      return { type: 'usage.reported', inputTokens: 1200, outputTokens: 80, costUsd: 0.002 };
  }
}

export function makeRepo(root) {
  const repo = join(root, 'live-repo');
  mkdirSync(repo);
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@localhost', ...args], {
      cwd: repo,
      stdio: 'ignore',
    });
  git('init', '--quiet');
  git('add', '.');
  git('commit', '--quiet', '-m', 'initial');
  return repo;
}

export function startSupervisor(home, root) {
  const child = spawn(process.execPath, [join(DIST, 'server', 'main.js')], {
    cwd: root,
    env: { ...process.env, BATON_HOME: home, BATON_MAX_CONCURRENT: '1000' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the supervisor did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`the supervisor exited with ${code}`)));
    child.on('message', (message) => {
      if (!message?.ready) return;
      clearTimeout(timer);
      child.disconnect();
      resolve({ pid: child.pid, port: message.port, exited });
    });
  });
}

export function apiClient(port, token) {
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
    return response.json();
  };
  return { base, get: (path) => call('GET', path), post: (path, body) => call('POST', path, body) };
}

async function loggedInPage(browser, api, sessions) {
  const { url } = await api.post('/api/ui/login');
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  // Records when each transcript event arrives and is painted, against the event's own timestamp.
  await page.addInitScript(watchCards, sessions);
  await page.addInitScript(() => {
    window.__latencies = [];
    const Native = window.EventSource;
    window.EventSource = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('event', (message) => {
          const ts = Date.parse(JSON.parse(message.data).ts);
          requestAnimationFrame(() => setTimeout(() => window.__latencies.push(Date.now() - ts), 0));
        });
      }
    };
  });
  await page.goto(url);
  await page.waitForSelector('[data-testid=board] .card');
  return page;
}

/**
 * Runs in the page before its first byte. Every card's name gets an `elementtiming` attribute as
 * it is inserted, so the browser reports when each was presented on screen (not merely laid
 * out); and once `count` cards are in the page, the frame after is marked. `window.__allCards`
 * is a promise of that mark, so the driver waits on it without polling: Playwright's default
 * polling runs on every animation frame, which makes the page render frames while it loads and
 * was measured to add about 30 ms to the p50 of the board load it was timing.
 */
function watchCards(count) {
  let resolve;
  window.__allCards = new Promise((r) => (resolve = r));
  const watcher = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.matches('.card-name')) node.setAttribute('elementtiming', 'card');
        for (const name of node.querySelectorAll('.card-name')) name.setAttribute('elementtiming', 'card');
      }
    }
    const cards = document.querySelectorAll('.card-name').length;
    if (cards < count) return;
    watcher.disconnect();
    requestAnimationFrame(() => setTimeout(() => resolve({ at: performance.now(), cards }), 0));
  });
  watcher.observe(document, { childList: true, subtree: true });
}

/**
 * Reloads and waits until `count` cards are in the page, then until the page is idle, so the next
 * reload does not start while this one's work (hydration, the deferred cards) still runs.
 */
async function reloadUntilCards(page) {
  await page.reload({ waitUntil: 'load' });
  const all = await page.evaluate(() =>
    Promise.race([
      window.__allCards,
      new Promise((_, reject) =>
        setTimeout(
          () =>
            reject(
              new Error(
                `only ${document.querySelectorAll('.card-name').length} cards in the page after 30 s`,
              ),
            ),
          30_000,
        ),
      ),
    ]),
  );
  await page.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 })));
  return all;
}

/** When the last card inside the viewport was presented, from the browser's Element Timing entries. */
function firstScreenPresented() {
  return new Promise((resolve) => {
    new PerformanceObserver((list, observer) => {
      observer.disconnect();
      const onScreen = list.getEntries().filter((e) => e.intersectionRect.height > 0);
      resolve(onScreen.length === 0 ? NaN : Math.max(...onScreen.map((e) => e.renderTime)));
    }).observe({ type: 'element', buffered: true });
  });
}

/** From navigation start, on the page's own clock: the driver's round trips do not count. */
async function boardLoad(page) {
  const { at: all } = await reloadUntilCards(page);
  const firstScreen = await page.evaluate(firstScreenPresented);
  if (!Number.isFinite(firstScreen)) throw new Error('the browser reported no card painted on screen');
  return { firstScreen, all };
}

/** The same measure for a fixed page served by a bare HTTP server, the CSS from the built UI. */
async function staticBaseline(browser, html, runs) {
  const css = readFileSync(join(ROOT, 'web', 'dist', 'index.html'), 'utf8').match(
    /href="(\/assets\/[^"]+\.css)"/,
  )?.[1];
  const server = createServer((request, response) => {
    if (css !== undefined && request.url === css) {
      response.writeHead(200, { 'content-type': 'text/css', 'cache-control': 'max-age=31536000, immutable' });
      response.end(readFileSync(join(ROOT, 'web', 'dist', css)));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(html);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  try {
    await page.addInitScript(watchCards, 1);
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    return await timeMany(
      runs,
      async () => {
        await reloadUntilCards(page);
        return { firstScreen: await page.evaluate(firstScreenPresented) };
      },
      true,
    );
  } finally {
    await page.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Click a card on the board; measured inside the page from the click to the painted frames. */
async function switchToSession(page, id) {
  await page.evaluate(() => {
    history.pushState(null, '', '/');
    dispatchEvent(new PopStateEvent('popstate'));
  });
  await page.waitForSelector(`[data-session-id="${id}"]`);
  return page.evaluate(
    (sessionId) =>
      new Promise((resolve) => {
        const painted = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const result = {};
        const t0 = performance.now();
        const check = async () => {
          if (result.header === undefined && document.querySelector('[data-testid=session-page] h1')) {
            await painted();
            result.header = performance.now() - t0;
          }
          if (document.querySelector('[data-testid=transcript] .msg, [data-testid=transcript] .tool')) {
            observer.disconnect();
            await painted();
            result.transcript = performance.now() - t0;
            result.header ??= result.transcript;
            resolve(result);
          }
        };
        const observer = new MutationObserver(() => void check());
        observer.observe(document.body, { childList: true, subtree: true });
        document.querySelector(`[data-session-id="${sessionId}"]`).click();
      }),
    id,
  );
}

/** A live scripted session emits a message every 25 ms; the open page records each one's delay. */
async function eventToPage(page, api, repo, count) {
  const steps = [{ sleep: 500 }];
  for (let i = 0; i < count; i++) steps.push({ say: `tick ${i}` }, { sleep: 25 });
  const { session } = await api.post('/api/sessions', {
    prompt: 'latency probe',
    cwd: repo,
    name: 'latency-probe',
    options: { script: { steps } },
  });
  await page.evaluate((id) => {
    window.__latencies = [];
    history.pushState(null, '', `/s/${id}`);
    dispatchEvent(new PopStateEvent('popstate'));
  }, session.id);
  await page.waitForFunction((n) => window.__latencies.length >= n, count, { timeout: 60_000, polling: 100 });
  return page.evaluate(() => window.__latencies.slice());
}

/** Times `fn` from here, or collects what it measured itself (`selfTimed`). */
async function timeMany(runs, fn, selfTimed = false) {
  await fn(); // warm-up: first requests pay for JIT and cold caches
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const value = await fn();
    times.push(selfTimed ? value : performance.now() - started);
  }
  return times;
}

export function summarize(figures) {
  const out = {};
  for (const [name, values] of Object.entries(figures)) {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    out[name] = {
      n: sorted.length,
      p50: round(at(0.5)),
      p95: round(at(0.95)),
      max: round(sorted.at(-1)),
      ok: at(0.95) < GOAL_MS,
    };
  }
  return out;
}

const round = (n) => Math.round(n * 10) / 10;

export function killHosts(home) {
  const dir = join(home, 'sessions');
  if (!existsSync(dir)) return;
  for (const id of execFileSync('ls', [dir], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    const hostJson = join(dir, id, 'host.json');
    if (!existsSync(hostJson)) continue;
    try {
      process.kill(JSON.parse(readFileSync(hostJson, 'utf8')).pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--json') options.json = true;
    else if (['--sessions', '--events', '--runs'].includes(flag)) options[flag.slice(2)] = Number(argv[++i]);
    else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

/** Prints `run`'s result as the other benchmarks print theirs. */
export function print(result) {
  console.log(
    `\nWeb dashboard, ${result.sessions} sessions, ${result.events.toLocaleString('en-US')} events — goal: p95 < ${GOAL_MS} ms`,
  );
  for (const [name, f] of Object.entries(result.figures)) {
    const verdict = [STATIC_MARKUP, ONE_LINE_PAGE].includes(name) ? '' : f.ok ? 'ok' : 'OVER GOAL';
    console.log(
      `  ${name.padEnd(62)} p50 ${String(f.p50).padStart(6)} ms   p95 ${String(f.p95).padStart(6)} ms   max ${String(f.max).padStart(6)} ms  (n=${f.n}) ${verdict}`,
    );
  }
  for (const [name, value] of Object.entries(result.ratios)) console.log(`  ${name.padEnd(62)} ${value}×`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const options = parseArgs(process.argv.slice(2));
  const result = await run({ ...options, log: options.json ? () => undefined : (line) => console.log(line) });
  if (options.json) console.log(JSON.stringify(result, null, 2));
  else print(result);
}
