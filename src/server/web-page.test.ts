/**
 * The page a logged-in browser gets: the board rendered into the HTML by the built server-render
 * bundle, and the snapshot embedded, safely, for the script. Needs `npm run build` first, like
 * the browser tests: it checks the real bundle, not a stand-in.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PageRenderer, StreamSnapshot } from '../api/web.js';
import type { SessionState } from '../events/index.js';
import { SessionManager } from '../sessions/manager.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { createApp } from './app.js';
import { BrowserAuth } from './web-auth.js';
import { jsonForScript, RENDERER } from './web-page.js';
import { sessionRow } from '../../test/support/session-row.js';

const TOKEN = 'test-token-0123456789';
const PORT = 4322;
const SELF = `http://127.0.0.1:${PORT}`;
const HOSTILE = '</script><img src=x onerror=alert(1)>';
let dir: string;
let db: Db;
let manager: SessionManager;
let app: ReturnType<typeof createApp>;
/** The same database the manager uses, to set up sessions in states a test needs. */
let store: SessionStore;

beforeAll(() => {
  if (!existsSync(RENDERER)) throw new Error('The web UI is not built: run `npm run build` first.');
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-web-page-'));
  db = openDb(join(dir, 'baton.db'));
  manager = new SessionManager({ home: dir, db, maxConcurrent: 2, env: {} });
  store = new SessionStore(db);
  app = createApp({
    manager,
    token: TOKEN,
    port: () => PORT,
    browserAuth: new BrowserAuth({ port: () => PORT }),
    requestShutdown: () => undefined,
    status: () => ({
      pid: 1,
      port: PORT,
      home: dir,
      version: 'test',
      startedAt: '',
      uptimeSeconds: 0,
      maxConcurrent: 2,
      active: 0,
      queued: 0,
      sessions: 0,
      sandbox: { kind: 'none', detail: 'test', summary: 'test' },
    }),
  });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return Promise.resolve(
    app.request(`${SELF}${path}`, { method, headers: { host: `127.0.0.1:${PORT}`, ...headers } }),
  );
}

async function login(): Promise<string> {
  const issued = await request('/api/ui/login', { authorization: `Bearer ${TOKEN}` }, 'POST');
  const { url } = (await issued.json()) as { url: string };
  const response = await request(new URL(url).pathname + new URL(url).search);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

function addSession(name: string, prompt: string, state: SessionState): void {
  const project = store.ensureProject(join(dir, 'repo'));
  store.insert(
    sessionRow({ id: `id-${name}`, project_id: project.id, name, prompt, worktree: join(dir, name) }),
    state,
  );
}

/** The embedded snapshot, read the way the page's script reads it. */
function embedded(html: string): StreamSnapshot | undefined {
  const match = /<script type="application\/json" id="snapshot">([^<]*)<\/script>/.exec(html);
  return match?.[1] === undefined ? undefined : (JSON.parse(match[1]) as StreamSnapshot);
}

describe('the page for a logged-in browser', () => {
  it('has the board rendered in the HTML: groups, names and states before any script runs', async () => {
    addSession('tidy', 'tidy the imports', 'ready_for_review');
    addSession('broken', 'upgrade the runner', 'failed');
    const response = await request('/', { cookie: await login() });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toMatch(
      /<section class="group group-ready_for_review" data-group="ready_for_review">.*<span class="card-name">tidy<\/span>.*Ready for review/s,
    );
    expect(html).toMatch(
      /<section class="group group-failed" data-group="failed">.*<span class="card-name">broken<\/span>.*Failed/s,
    );
    expect(html).toContain('tidy the imports');
    expect(
      embedded(html)
        ?.sessions.map((s) => s.name)
        .sort(),
    ).toEqual(['broken', 'tidy']);
  });

  it('renders a first screen of cards, with a way to all of them for a browser without JavaScript', async () => {
    for (let i = 0; i < 30; i++)
      addSession(`s${String(i).padStart(2, '0')}`, `task ${i}`, 'ready_for_review');
    const cookie = await login();
    const first = await (await request('/', { cookie })).text();
    expect(first.match(/<article class="card/g)).toHaveLength(24);
    expect(first).toMatch(
      /<noscript><p class="more">Showing the first <!-- -->24<!-- --> of <!-- -->30<!-- --> sessions\. <a href="\/\?all=1">Show all<\/a><\/p><\/noscript>/,
    );
    // The script gets every session and renders the rest itself.
    expect(embedded(first)?.sessions).toHaveLength(30);
    const all = await (await request('/?all=1', { cookie })).text();
    expect(all.match(/<article class="card/g)).toHaveLength(30);
    expect(all).not.toContain('class="more"');
    // Each kind of page is kept apart: the first screen is not served for `?all=1`, or back.
    expect((await (await request('/', { cookie })).text()).match(/<article class="card/g)).toHaveLength(24);
  });

  it('names the machine running each session when the workspace is shared across machines', async () => {
    addSession('tidy', 'tidy the imports', 'ready_for_review');
    const renderer = (await import(RENDERER)) as PageRenderer;
    const renderPage: PageRenderer['renderPage'] = (path, snapshot) => renderer.renderPage(path, snapshot);
    const view = manager.view(manager.resolve('tidy'));
    const shared = renderPage('/', { sessions: [{ ...view, machine: 'build-box' }] }) ?? '';
    expect(shared).toMatch(
      /<span class="card-name">tidy<\/span>.*<span class="card-machine" title="The machine running it">on <!-- -->build-box<\/span>/s,
    );
    expect(renderPage('/', { sessions: [view] }) ?? '').not.toContain('card-machine');
    expect(renderPage('/s/id-tidy', { sessions: [{ ...view, machine: 'build-box' }] }) ?? '').toMatch(
      /Machine.*build-box/s,
    );
  });

  it('escapes user and agent text in the markup and in the embedded snapshot', async () => {
    addSession('hostile', HOSTILE, 'ready_for_review');
    const html = await (await request('/', { cookie: await login() })).text();
    expect(html).not.toContain('<img');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    // Exactly two script elements: the bundle and the inert JSON, which parses back to the original text.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(embedded(html)?.sessions[0]?.prompt).toBe(HOSTILE);
  });

  it("renders the inbox and a session's page with their answer forms, and leaves the dispatch form to the browser", async () => {
    addSession('tidy', 'tidy the imports', 'ready_for_review');
    addSession('asker', 'pick a port', 'needs_input');
    store.applyProjection('id-asker', {
      state: 'needs_input',
      reason: { kind: 'question', text: 'Which port?' },
      activity: 'asks: Which port?',
      lastSeq: 3,
      offset: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      agentSessionId: null,
      lastEventAt: new Date().toISOString(),
    });
    const cookie = await login();
    const inbox = await (await request('/inbox', { cookie })).text();
    // The question, then a form that posts the answer without JavaScript: Send is not disabled.
    expect(inbox).toMatch(
      /Which port\?<\/div><form class="reply" action="\/s\/id-asker\/respond" method="post"><input type="hidden" name="action" value="reply"\/><textarea name="text"[^>]*><\/textarea><button class="btn btn-primary" type="submit">/,
    );
    expect(inbox).not.toContain('<span class="inbox-task">tidy the imports</span>');
    expect(inbox).toContain('<span class="inbox-task">pick a port</span>');
    const session = await (await request('/s/id-tidy', { cookie })).text();
    expect(session).toContain('<h1>tidy</h1>');
    expect(session).toContain('Loading the transcript');
    const dispatch = await (await request('/dispatch', { cookie })).text();
    expect(dispatch).toContain('<div id="root"></div>');
    expect(embedded(dispatch)?.sessions).toHaveLength(2);
  });

  it('renders the next page afresh once a session changes', async () => {
    addSession('tidy', 'tidy the imports', 'ready_for_review');
    const cookie = await login();
    expect(await (await request('/', { cookie })).text()).not.toContain('aria-label="Pinned"');
    manager.setPinned('tidy', true);
    const html = await (await request('/', { cookie })).text();
    expect(html).toMatch(/data-group="pinned">.*<span class="card-name">tidy<\/span><svg class="pin"/s);
  });

  it('gives a browser that is not logged in the bare shell, with no session data', async () => {
    addSession('secret', 'do not leak me', 'ready_for_review');
    for (const cookie of [undefined, 'baton_4322=forged']) {
      const response = await request('/', cookie === undefined ? {} : { cookie });
      const html = await response.text();
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(html).toContain('<div id="root"></div>');
      expect(html).not.toContain('do not leak me');
      expect(embedded(html)).toBeUndefined();
    }
  });

  it('does not serve the server-render bundle to browsers', async () => {
    const html = await (await request('/ssr/render.js')).text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).not.toContain('renderToString');
  });
});

describe('jsonForScript', () => {
  it('leaves no character that could end or alter a script element, and parses back unchanged', () => {
    const value = { text: `${HOSTILE} <!-- & \u2028\u2029 $& $' "quoted"` };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
