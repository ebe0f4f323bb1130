import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../store/db.js';
import { SessionManager } from '../sessions/manager.js';
import { createApp } from './app.js';

const TOKEN = 'test-token-0123456789';
const PORT = 4321;
let dir: string;
let db: Db;
let app: ReturnType<typeof createApp>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-app-'));
  db = openDb(join(dir, 'baton.db'));
  const manager = new SessionManager({ home: dir, db, maxConcurrent: 2, env: {} });
  app = createApp({
    manager,
    token: TOKEN,
    port: () => PORT,
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
  init: RequestInit & { headers?: Record<string, string> } = {},
): Promise<Response> {
  return Promise.resolve(
    app.request(`http://127.0.0.1:${PORT}${path}`, {
      ...init,
      headers: { host: `127.0.0.1:${PORT}`, authorization: `Bearer ${TOKEN}`, ...init.headers },
    }),
  );
}

describe('the supervisor API guards', () => {
  it('answers a request with the token and a loopback Host', async () => {
    const response = await request('/api/sessions');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      sessions: [],
      reviewQueue: { sessions: 0, measuring: 0, files: 0, additions: 0, deletions: 0 },
    });
  });

  it('refuses requests without the token or with a wrong one', async () => {
    expect((await request('/api/sessions', { headers: { authorization: '' } })).status).toBe(401);
    expect((await request('/api/sessions', { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(
      401,
    );
    expect((await request('/api/sessions', { headers: { authorization: TOKEN } })).status).toBe(401);
  });

  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    const response = await request('/api/sessions', { headers: { host: `evil.example:${PORT}` } });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await request('/api/sessions', { headers: { host: '127.0.0.1:9999' } })).status).toBe(403);
  });

  it('refuses a foreign Origin and accepts its own', async () => {
    expect((await request('/api/sessions', { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect((await request('/api/sessions', { headers: { origin: `http://localhost:${PORT}` } })).status).toBe(
      200,
    );
  });

  it('rejects malformed bodies with a readable 400', async () => {
    const notJson = await request('/api/sessions', {
      method: 'POST',
      body: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({
      error: { code: 'invalid_input', message: 'The request body is not valid JSON.' },
    });

    const invalid = await request('/api/sessions', {
      method: 'POST',
      body: JSON.stringify({ prompt: '', cwd: '/', agent: 'GPT!', extra: 1 }),
    });
    expect(invalid.status).toBe(400);
    const body = (await invalid.json()) as { error: { message: string } };
    expect(body.error.message).toContain('prompt: the prompt is empty');
    // Any well-formed name may be a user's own agent (decision 280): a malformed one is refused here.
    expect(body.error.message).toContain('agent: an agent name is lowercase letters, digits and dashes');
    expect(body.error.message).toContain('Unrecognized key: "extra"');
  });

  it('answers a search holding control characters with a 400 or hits, never a 500', async () => {
    const alone = await request('/api/search?q=%00');
    expect(alone.status).toBe(400);
    expect(await alone.json()).toMatchObject({
      error: { message: expect.stringMatching(/control characters/) },
    });
    for (const q of [
      'a%00b',
      '%22a%00b%22',
      '%01',
      '%1f',
      '%7f',
      'x%0d%0ay',
      '(%00)',
      '%00%20OR%20%00',
      '%08NOT',
    ]) {
      const response = await request(`/api/search?q=${q}`);
      expect([200, 400], q).toContain(response.status);
    }
  });

  it('answers 404 for unknown sessions and routes', async () => {
    const missing = await request('/api/sessions/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: 'not_found', message: expect.stringContaining('No session matches "nope"') },
    });
    expect((await request('/api/nothing')).status).toBe(404);
  });

  it('rejects a bad "after" on the event stream', async () => {
    const response = await request('/api/sessions/x/events?after=-1');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { message: '"after" must be a non-negative integer, got "-1"' },
    });
  });

  it('rejects a "relayed" other than 0 or 1 on the workspace\'s events, and lists none relayed when alone', async () => {
    const response = await request('/api/workspace/events?relayed=yes');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      '"relayed" must be 0 or 1, got "yes"',
    );
    const alone = await request('/api/workspace/events?relayed=1');
    expect(alone.status).toBe(200);
    expect(await alone.json()).toMatchObject({ relayed: [] });
  });
});
