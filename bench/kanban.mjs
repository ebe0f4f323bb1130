#!/usr/bin/env node
/**
 * The Tasks page (decision 110, "The kanban is a page of its own") with 1,000 tasks and 100 sessions in
 * Debian Chromium (playwright-core):
 *
 * - load of the kanban and of the board, each against the same markup served as a static file
 *   with no script (the browser's own cost of that page) — the baseline bench/web.mjs uses;
 * - a card moved from the keyboard (keydown → the card painted in its new column), against the
 *   same DOM move done by hand in the static copy;
 * - a task move made through the API reaching the open page (request → painted; goal p95 under
 *   100 ms), against the same event's arrival on the page's stream (the transport's share).
 *
 * The store is seeded directly (tasks across the six columns, a tenth with a dependency, one in
 * ten with a session), so no agent runs. `node bench/kanban.mjs [--runs 30]`, after a build.
 */
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ensureChromium } from '../scripts/chromium.mjs';
import { apiClient, CHROMIUM_ARGS, makeRepo, startSupervisor, summarize } from './web.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const TASKS = 1000;
const SESSIONS = 100;
const GOAL_MS = 100;
const COLUMNS = ['backlog', 'ready', 'running', 'needs_input', 'review', 'done'];

export async function run({ runs = 30, log = () => undefined } = {}) {
  if (!existsSync(join(DIST, 'server', 'main.js')) || !existsSync(join(ROOT, 'web', 'dist', 'index.html')))
    throw new Error('Build first: npm run build');
  const found = await ensureChromium({ install: false });
  if (!found.ok) throw new Error(found.message);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-bench-kanban-')));
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  let supervisor;
  let browser;
  try {
    const repo = makeRepo(root);
    await seed(home, repo);
    log(`seeded ${TASKS} tasks and ${SESSIONS} sessions`);
    supervisor = await startSupervisor(home, root);
    const api = apiClient(supervisor.port, readFileSync(join(home, 'token'), 'utf8').trim());
    browser = await chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS, headless: true });
    const figures = {};

    const kanban = await loggedIn(browser, api, '/tasks', '.kcard-title', TASKS);
    const kanbanLoads = await timeMany(runs, () => load(kanban));
    const kanbanHtml = withoutScripts(await kanban.evaluate(() => document.documentElement.outerHTML));
    const kanbanStatic = await staticPage(browser, kanbanHtml, '.kcard-title', TASKS);
    const staticLoads = await timeMany(runs, () => load(kanbanStatic.page));
    figures[`kanban load (navigation → all ${TASKS} cards in the page, next frame)`] = kanbanLoads.map(
      (l) => l.all,
    );
    figures['  baseline: the same markup as a static file, no script'] = staticLoads.map((l) => l.all);
    figures['kanban load (navigation → first screen of cards on screen)'] = kanbanLoads.map(
      (l) => l.firstScreen,
    );
    figures['  baseline: the same markup as a static file, first screen'] = staticLoads.map(
      (l) => l.firstScreen,
    );

    figures['keyboard move (keydown → card painted in its new column)'] = await timeMany(runs, (i) =>
      keyboardMove(kanban, i),
    );
    figures['  baseline: the same DOM move by hand in the static copy'] = await timeMany(runs, (i) =>
      domMove(kanbanStatic.page, i),
    );
    await kanbanStatic.close();

    const reach = await timeMany(runs, (i) => transition(kanban, api, i));
    figures['task move through the API → painted on the open page'] = reach.map((r) => r.painted);
    figures['  baseline: the same event arriving on the page’s stream'] = reach.map((r) => r.arrived);

    const board = await loggedIn(browser, api, '/', '.card-name', SESSIONS);
    const boardLoads = await timeMany(runs, () => load(board));
    const boardHtml = withoutScripts(await (await board.context().request.get(`${api.base}/?all=1`)).text());
    const boardStatic = await staticPage(browser, boardHtml, '.card-name', SESSIONS);
    figures[`board load, ${TASKS} tasks in the store (navigation → all ${SESSIONS} cards, next frame)`] =
      boardLoads.map((l) => l.all);
    figures['  baseline: the board’s markup as a static file, no script'] = (
      await timeMany(runs, () => load(boardStatic.page))
    ).map((l) => l.all);
    await boardStatic.close();

    const summary = summarize(figures);
    const names = Object.keys(summary);
    const ratios = {};
    for (let i = 1; i < names.length; i++)
      if (names[i].startsWith('  '))
        ratios[`${names[i - 1]}: ×baseline (p50)`] =
          Math.round((summary[names[i - 1]].p50 / summary[names[i]].p50) * 10) / 10;
    return { tasks: TASKS, sessions: SESSIONS, goalMs: GOAL_MS, figures: summary, ratios };
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
    rmSync(root, { recursive: true, force: true });
  }
}

/** Tasks and sessions written straight into a fresh store, one transaction. */
async function seed(home, repo) {
  const { openDb } = await import(join(DIST, 'store', 'db.js'));
  const { SessionStore } = await import(join(DIST, 'store', 'sessions.js'));
  const { TaskStore } = await import(join(DIST, 'store', 'tasks.js'));
  const db = openDb(join(home, 'baton.db'));
  const sessions = new SessionStore(db);
  const tasks = new TaskStore(db);
  const project = sessions.ensureProject(repo);
  // No `queued`: the supervisor would start those; seeded working ones have no host and stay put.
  const states = ['working', 'needs_input', 'ready_for_review', 'completed', 'failed', 'stopped'];
  const now = new Date().toISOString();
  db.transaction(() => {
    for (let i = 1; i <= TASKS; i++) {
      const column = COLUMNS[i % COLUMNS.length];
      tasks.insert(
        {
          project_id: project.id,
          title: `Task ${i}: refactor module ${i} and keep its tests green`,
          description: '',
          scope_json: JSON.stringify([`src/m${i}/**`, `test/m${i}/**`]),
          tracker: `#${i}`,
          board_column: column,
        },
        i > 1 && i % 10 === 0 ? [i - 1] : [],
        now,
      );
    }
    for (let s = 0; s < SESSIONS; s++) {
      const name = `session-${s}`;
      const id = `bench${String(s).padStart(5, '0')}`;
      sessions.insert(
        {
          id,
          project_id: project.id,
          name,
          agent: 'scripted',
          prompt: `Task ${s * 10 + 1}`,
          model: null,
          permission_mode: 'default',
          options_json: '{}',
          branch: `baton/${name}`,
          base_ref: 'main',
          base_commit: '0'.repeat(40),
          worktree: join(repo, '..', 'no-worktree', name),
          task_id: s * 10 + 1,
        },
        'queued',
      );
      const state = states[s % states.length];
      sessions.applyProjection(id, {
        state,
        reason: state === 'needs_input' ? { kind: 'question', text: `Question ${s}?` } : undefined,
        activity: 'turn finished',
        lastSeq: 0,
        offset: 0,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        agentSessionId: null,
        lastEventAt: now,
      });
    }
  })();
  db.close();
}

/** A logged-in page on `path`, watching for `count` elements matching `selector` (see watch). */
async function loggedIn(browser, api, path, selector, count) {
  const { url } = await api.post('/api/ui/login');
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.addInitScript(watch, { selector, count });
  await page.goto(`${url}&next=${encodeURIComponent(path)}`);
  await page.evaluate(() => window.__all);
  return page;
}

/**
 * Runs in the page before its first byte: marks each matching element for Element Timing (when
 * it was presented on screen) and resolves `window.__all` the frame after `count` are in the
 * page. Also records when each `task.moved` event arrives on the page's stream.
 */
function watch({ selector, count }) {
  let resolve;
  window.__all = new Promise((r) => (resolve = r));
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.matches(selector)) node.setAttribute('elementtiming', 'card');
        for (const el of node.querySelectorAll(selector)) el.setAttribute('elementtiming', 'card');
      }
    }
    if (document.querySelectorAll(selector).length < count) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
  });
  observer.observe(document, { childList: true, subtree: true });
  window.__arrived = new Map();
  const Native = window.EventSource;
  if (Native === undefined) return;
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('workspace', (message) => {
        const event = JSON.parse(message.data);
        if (event.type === 'task.moved')
          window.__arrived.set(
            `${event.data.task.id}:${event.data.to}`,
            performance.timeOrigin + performance.now(),
          );
      });
    }
  };
}

/** From navigation start, on the page's clock: every card in the page, and the first screen presented. */
async function load(page) {
  await page.reload({ waitUntil: 'load' });
  const all = await page.evaluate(() =>
    Promise.race([
      window.__all,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('the cards did not all arrive in 30 s')), 30_000),
      ),
    ]),
  );
  const firstScreen = await page.evaluate(
    () =>
      new Promise((resolve) => {
        new PerformanceObserver((list, observer) => {
          observer.disconnect();
          const onScreen = list.getEntries().filter((e) => e.intersectionRect.height > 0);
          resolve(Math.max(...onScreen.map((e) => e.renderTime)));
        }).observe({ type: 'element', buffered: true });
      }),
  );
  await page.evaluate(() => new Promise((r) => requestIdleCallback(r, { timeout: 2000 })));
  return { all, firstScreen };
}

function withoutScripts(html) {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
    .replace(/<link rel="modulepreload"[^>]*>/g, '');
}

/** `html` served by a bare HTTP server with the built CSS, open in a page watching the same way. */
async function staticPage(browser, html, selector, count) {
  const css = readFileSync(join(ROOT, 'web', 'dist', 'index.html'), 'utf8').match(
    /href="(\/assets\/[^"]+\.css)"/,
  )?.[1];
  const server = createServer((request, response) => {
    if (css !== undefined && request.url === css) {
      response.writeHead(200, { 'content-type': 'text/css', 'cache-control': 'max-age=31536000, immutable' });
      return response.end(readFileSync(join(ROOT, 'web', 'dist', css)));
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(html);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.addInitScript(watch, { selector, count });
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  return { page, close: async () => (await page.close(), await new Promise((r) => server.close(r))) };
}

/** The first card of Backlog or Ready sent to the other with its number key, timed in the page. */
function keyboardMove(page, i) {
  const [from, to] = i % 2 === 0 ? ['backlog', 'ready'] : ['ready', 'backlog'];
  return page.evaluate(
    ([from, to, key]) =>
      new Promise((resolve) => {
        const card = document.querySelector(`[data-column=${from}] [data-task-id]`);
        const id = card.getAttribute('data-task-id');
        card.focus();
        const observer = new MutationObserver(() => {
          if (
            document.querySelector(`[data-testid=task-column][data-column=${to}] [data-task-id="${id}"]`) ===
            null
          )
            return;
          observer.disconnect();
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
        });
        observer.observe(document.querySelector('[data-testid=kanban]'), { childList: true, subtree: true });
        const t0 = performance.now();
        card.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
      }),
    [from, to, to === 'ready' ? '2' : '1'],
  );
}

function domMove(page, i) {
  const [from, to] = i % 2 === 0 ? ['backlog', 'ready'] : ['ready', 'backlog'];
  return page.evaluate(
    ([from, to]) =>
      new Promise((resolve) => {
        const t0 = performance.now();
        const card = document.querySelector(`[data-column=${from}] .kcolumn-cards > div`);
        document.querySelector(`[data-column=${to}] .kcolumn-cards`).append(card);
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
      }),
    [from, to],
  );
}

/** A move made through the API (as the CLI does), from just before the request to the card painted on the open page. */
async function transition(page, api, i) {
  const id = 2 + ((i * 37) % (TASKS - 2));
  // Always to another column, so the card has somewhere to go.
  const from = await page.evaluate(
    (id) => document.querySelector(`[data-task-id="${id}"]`)?.getAttribute('data-column'),
    id,
  );
  const to = from === 'review' ? 'ready' : 'review';
  const painted = page.evaluate(
    ([id, to]) =>
      new Promise((resolve) => {
        const there = () =>
          document.querySelector(`[data-testid=task-column][data-column=${to}] [data-task-id="${id}"]`) !==
          null;
        const observer = new MutationObserver(() => {
          if (!there()) return;
          observer.disconnect();
          requestAnimationFrame(() =>
            setTimeout(
              () =>
                resolve({
                  painted: performance.timeOrigin + performance.now(),
                  arrived: window.__arrived.get(`${id}:${to}`),
                }),
              0,
            ),
          );
        });
        observer.observe(document.querySelector('[data-testid=kanban]'), { childList: true, subtree: true });
      }),
    [id, to],
  );
  await page.evaluate(() => undefined); // the observer is in place before the request goes
  const t0 = performance.timeOrigin + performance.now();
  await api.post(`/api/tasks/${id}/move`, { column: to, position: 0 });
  const at = await painted;
  return { painted: at.painted - t0, arrived: at.arrived - t0 };
}

/** Runs `fn(i)` once to warm up, then `runs` times, collecting what it measured. */
async function timeMany(runs, fn) {
  await fn(runs);
  const values = [];
  for (let i = 0; i < runs; i++) values.push(await fn(i));
  return values;
}

export function print(result) {
  console.log(
    `\nTasks page: ${result.tasks} tasks, ${result.sessions} sessions — goal for a transition reaching the page: p95 < ${result.goalMs} ms`,
  );
  for (const [name, f] of Object.entries(result.figures))
    console.log(
      `  ${name.padEnd(78)} p50 ${String(f.p50).padStart(6)} ms   p95 ${String(f.p95).padStart(6)} ms   max ${String(f.max).padStart(6)} ms  (n=${f.n})`,
    );
  for (const [name, value] of Object.entries(result.ratios)) console.log(`  ${name.padEnd(78)} ${value}×`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const runs = process.argv[2] === '--runs' ? Number(process.argv[3]) : undefined;
  print(await run({ ...(runs === undefined ? {} : { runs }), log: (line) => console.log(line) }));
}
