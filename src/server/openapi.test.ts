import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../store/db.js';
import { SessionManager } from '../sessions/manager.js';
import { createApp } from './app.js';
import { openApiDocument } from './openapi.js';
import { BrowserAuth } from './web-auth.js';

const PORT = 4321;
let dir: string;
let db: Db;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-openapi-'));
  db = openDb(join(dir, 'baton.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>;
        requestBody?: unknown;
      }
    >
  >;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; type?: string }> };
};

describe('the OpenAPI document', () => {
  it('lists exactly the API routes the supervisor registers, dangerous-mode acceptance included', () => {
    const manager = new SessionManager({ home: dir, db, maxConcurrent: 2, env: {} });
    const app = createApp({
      manager,
      token: 't',
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
    const registered = app.routes
      .filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/'))
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const doc = openApiDocument() as Doc;
    const documented = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(registered).toEqual(documented);
    expect(documented).toContain('POST /api/dangerous-mode/accept');
  });

  it('types what used to be bare objects: peek, remove and the daemon status', () => {
    const doc = openApiDocument() as Doc;
    const json = (path: string, method: string) =>
      Object.values(doc.paths[path]?.[method]?.responses ?? {})[0]?.content['application/json']?.schema.$ref;
    expect(json('/api/sessions/{ref}/peek', 'get')).toBe('#/components/schemas/PeekView');
    expect(json('/api/sessions/{ref}', 'delete')).toBe('#/components/schemas/RemoveView');
    expect(json('/api/daemon', 'get')).toBe('#/components/schemas/DaemonStatus');
    expect(doc.components.schemas.PeekView?.properties).toHaveProperty('filesChanged');
    expect(doc.components.schemas.DaemonStatus?.properties).toHaveProperty('uptimeSeconds');
    expect(doc.paths['/api/dangerous-mode/accept']?.post?.requestBody).toBeDefined();
  });

  it('marks the streams and the diff as such', () => {
    const doc = openApiDocument() as Doc;
    const content = (path: string) => Object.keys(doc.paths[path]?.get?.responses['200']?.content ?? {});
    expect(content('/api/stream')).toEqual(['text/event-stream']);
    expect(content('/api/sessions/{ref}/events')).toEqual(['application/json', 'text/event-stream']);
    expect(content('/api/sessions/{ref}/diff')).toEqual(['text/x-diff']);
  });
});
