import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../store/db.js';
import { SessionManager } from '../sessions/manager.js';
import { createApp } from './app.js';
import { BrowserAuth, LOGIN_CODE_TTL_MS } from './web-auth.js';

const TOKEN = 'test-token-0123456789';
const PORT = 4321;
const SELF = `http://127.0.0.1:${PORT}`;
let dir: string;
let db: Db;
let now: number;
let app: ReturnType<typeof createApp>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-web-'));
  db = openDb(join(dir, 'baton.db'));
  now = Date.parse('2030-01-01T00:00:00Z');
  const manager = new SessionManager({ home: dir, db, maxConcurrent: 2, env: {} });
  app = createApp({
    manager,
    token: TOKEN,
    port: () => PORT,
    browserAuth: new BrowserAuth({ port: () => PORT, now: () => now }),
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

function request(
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return Promise.resolve(
    app.request(`${SELF}${path}`, { ...init, headers: { host: `127.0.0.1:${PORT}`, ...init.headers } }),
  );
}

const bearer = { authorization: `Bearer ${TOKEN}` };

/** Logs in as `baton ui` would and returns the Cookie header a browser would send. */
async function login(): Promise<string> {
  const issued = await request('/api/ui/login', { method: 'POST', headers: bearer });
  expect(issued.status).toBe(201);
  const { url } = (await issued.json()) as { url: string };
  const response = await request(new URL(url).pathname + new URL(url).search);
  expect(response.status).toBe(303);
  expect(response.headers.get('location')).toBe('/');
  const setCookie = response.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/^baton_4321=[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/);
  expect(setCookie).not.toContain(TOKEN);
  return setCookie.split(';')[0] as string;
}

describe('browser login and cookie auth', () => {
  it('swaps a one-time code for a cookie that authenticates API reads', async () => {
    const cookie = await login();
    const response = await request('/api/sessions', { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      sessions: [],
      reviewQueue: { sessions: 0, measuring: 0, files: 0, additions: 0, deletions: 0 },
    });
  });

  it('refuses API requests without the cookie or token, and with a forged cookie', async () => {
    expect((await request('/api/sessions')).status).toBe(401);
    expect((await request('/api/stream')).status).toBe(401);
    expect((await request('/api/sessions', { headers: { cookie: 'baton_4321=forged' } })).status).toBe(401);
  });

  it('lands on the page the login asks for (`baton review 2 --open`), but only a path of this site', async () => {
    const cases: [string, string][] = [
      ['/review/app/2', '/review/app/2'],
      ['//evil.example/x', '/'],
      ['/\\evil.example', '/'],
      ['https://evil.example/', '/'],
      ['/x\r\nset-cookie: a=b', '/'],
    ];
    for (const [next, location] of cases) {
      const { url } = (await (
        await request('/api/ui/login', { method: 'POST', headers: bearer })
      ).json()) as { url: string };
      const response = await request(
        `${new URL(url).pathname}${new URL(url).search}&next=${encodeURIComponent(next)}`,
      );
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(location);
    }
  });

  it('lets a code work once and only within its lifetime', async () => {
    const first = (await (await request('/api/ui/login', { method: 'POST', headers: bearer })).json()) as {
      url: string;
    };
    const path = new URL(first.url).pathname + new URL(first.url).search;
    expect((await request(path)).status).toBe(303);
    expect((await request(path)).status).toBe(401);

    const second = (await (await request('/api/ui/login', { method: 'POST', headers: bearer })).json()) as {
      url: string;
    };
    now += LOGIN_CODE_TTL_MS + 1;
    const late = await request(new URL(second.url).pathname + new URL(second.url).search);
    expect(late.status).toBe(401);
    expect(late.headers.get('set-cookie')).toBeNull();
    expect(await late.text()).toContain('Run <code>baton ui</code> again');
  });

  it('needs our Origin on cookie-authenticated writes (CSRF) and refuses a foreign one', async () => {
    const cookie = await login();
    const body = JSON.stringify({ pinned: true });
    const noOrigin = await request('/api/sessions/x/pin', { method: 'POST', body, headers: { cookie } });
    expect(noOrigin.status).toBe(401);
    const foreign = await request('/api/sessions/x/pin', {
      method: 'POST',
      body,
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const sameSiteOtherPort = await request('/api/sessions/x/pin', {
      method: 'POST',
      body,
      headers: { cookie, origin: 'http://127.0.0.1:9999' },
    });
    expect(sameSiteOtherPort.status).toBe(403);
    // Authenticated and allowed through: the session simply does not exist.
    const own = await request('/api/sessions/x/pin', {
      method: 'POST',
      body,
      headers: { cookie, origin: SELF },
    });
    expect(own.status).toBe(404);
  });

  it('keeps a browser login away from token-only actions: accepting dangerous modes, stopping the supervisor, minting logins', async () => {
    let stopped = 0;
    app = createApp({
      manager: new SessionManager({ home: dir, db, maxConcurrent: 2, env: {} }),
      token: TOKEN,
      port: () => PORT,
      browserAuth: new BrowserAuth({ port: () => PORT, now: () => now }),
      requestShutdown: () => void stopped++,
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
    const browser = await login();
    const asPage = { cookie: browser, origin: SELF, 'content-type': 'application/json' };
    const accept = await request('/api/dangerous-mode/accept', {
      method: 'POST',
      body: JSON.stringify({ cwd: dir }),
      headers: asPage,
    });
    expect(accept.status).toBe(403);
    expect(((await accept.json()) as { error: { message: string } }).error.message).toMatch(
      /needs the token/,
    );
    expect((await request('/api/daemon/stop', { method: 'POST', headers: asPage })).status).toBe(403);
    expect((await request('/api/ui/login', { method: 'POST', headers: asPage })).status).toBe(403);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(0);
    // The token holder may.
    expect((await request('/api/daemon/stop', { method: 'POST', headers: bearer })).status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(1);
  });

  it('takes form posts from its own pages only, and answers bad ones with a page that says why', async () => {
    const cookie = await login();
    const form = (body: string, headers: Record<string, string>) =>
      request('/s/nope/respond', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      });
    const own = { cookie, origin: SELF, referer: `${SELF}/inbox` };
    const attempts: Record<string, string>[] = [
      { origin: SELF },
      { cookie },
      { cookie, origin: 'null' },
      { cookie: 'baton_4321=forged', origin: SELF },
    ];
    for (const headers of attempts) {
      const refused = await form('action=approve', headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
    }
    expect((await form('action=approve', { cookie, origin: 'http://evil.example' })).status).toBe(403);

    const unknown = await form('action=approve', own);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toMatch(
      /<h1[^>]*>That did not go through<\/h1>[\s\S]*No session matches &#34;nope&#34;[\s\S]*<a href="\/inbox">Back<\/a>/,
    );
    const offSite = await form('action=approve', { ...own, referer: `${SELF}//evil.example/x` });
    expect(await offSite.text()).toContain('<a href="/">Back</a>');
    const badAction = await request('/s/nope/respond', {
      method: 'POST',
      body: 'action=%3Cscript%3E',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...own },
    });
    expect(badAction.status).toBe(400);
    const page = await badAction.text();
    expect(page).toContain('Invalid form: action:');
    expect(page).not.toContain('<script>');
  });

  it('refuses a foreign Host on pages, login and API alike (DNS rebinding)', async () => {
    const cookie = await login();
    for (const path of ['/', '/login?code=x', '/api/sessions']) {
      const response = await request(path, { headers: { host: `evil.example:${PORT}`, cookie } });
      expect(response.status, path).toBe(403);
    }
  });

  it('mints login codes for the token holder only, not for a page with the cookie', async () => {
    const cookie = await login();
    const response = await request('/api/ui/login', { method: 'POST', headers: { cookie, origin: SELF } });
    expect(response.status).toBe(403);
  });

  it('serves the built UI shell to anyone on a loopback Host, with a strict CSP', async () => {
    // `npm test` builds first, so the UI is there: a 503 "not built" page is a failure here.
    const response = await request('/s/anything');
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<div id="root">');
    expect(html).toMatch(/<script type="module"[^>]* src="\/assets\/[^"]+\.js"><\/script>/);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await request('/api/nothing', { headers: bearer })).status).toBe(404);
  });

  it('serves an OpenAPI document generated from the schemas', async () => {
    const response = await request('/api/openapi.json', { headers: bearer });
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/sessions', '/api/sessions/{ref}/diff', '/api/inbox', '/api/stream']),
    );
    expect(Object.keys(doc.components.schemas.PlacedDispatchRequest?.properties ?? {})).toEqual(
      expect.arrayContaining(['prompt', 'cwd', 'agent', 'model', 'base', 'on']),
    );
    expect(doc.components.schemas.SessionView?.properties).toHaveProperty('state');
  });
});

describe('browser logins across supervisor restarts', () => {
  const cookieFor = (secret: string) =>
    new Request(`${SELF}/api/sessions`, { headers: { cookie: `baton_${PORT}=${secret}` } });

  it('keeps only digests in a 0600 file, and a new supervisor honours the logins it lists', () => {
    const file = join(dir, 'browser-logins.json');
    const first = new BrowserAuth({ port: () => PORT, file, now: () => now });
    const secret = first.redeem(first.issueCode().code) as string;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secret);
    const again = new BrowserAuth({ port: () => PORT, file, now: () => now });
    expect(again.allows(cookieFor(secret))).toBe(true);
    expect(again.allows(cookieFor('forged'))).toBe(false);
  });

  it('drops logins that expired while it was down', () => {
    const file = join(dir, 'browser-logins.json');
    const first = new BrowserAuth({ port: () => PORT, file, now: () => now });
    const secret = first.redeem(first.issueCode().code) as string;
    const later = new BrowserAuth({ port: () => PORT, file, now: () => now + 8 * 24 * 3600 * 1000 });
    expect(later.allows(cookieFor(secret))).toBe(false);
  });

  it('starts with no logins from a damaged file, and replaces it at the next login', () => {
    const file = join(dir, 'browser-logins.json');
    for (const damaged of [
      '{"v":1,"sessions":',
      '{"v":2,"sessions":{}}',
      '{"v":1,"sessions":{"not-a-digest":1}}',
      '[]',
    ]) {
      writeFileSync(file, damaged);
      const auth = new BrowserAuth({ port: () => PORT, file, now: () => now });
      const secret = auth.redeem(auth.issueCode().code) as string;
      expect(new BrowserAuth({ port: () => PORT, file, now: () => now }).allows(cookieFor(secret))).toBe(
        true,
      );
    }
  });
});
