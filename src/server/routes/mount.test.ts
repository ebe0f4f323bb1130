import { Hono } from 'hono';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { endpoint } from '../../api/endpoint.js';
import { PreparedJson } from '../../shared/prepared-json.js';
import { mount } from './mount.js';

const TABLE = {
  'GET /api/things': endpoint({ summary: 'things', response: z.object({ things: z.array(z.string()) }) }),
  'GET /api/plain': endpoint({ summary: 'plain', response: z.object({ n: z.number() }) }),
};
const kept = new PreparedJson({ things: ['a', 'ü'] });
const app = new Hono();
mount(app, TABLE, { 'GET /api/things': () => kept, 'GET /api/plain': () => ({ n: 1 }) });

describe('a JSON answer kept serialized (decision 465)', () => {
  it('is sent as its bytes, as JSON, with its tag, asked again each time by a browser', async () => {
    const response = await app.request('/api/things');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('etag')).toBe(kept.etag);
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(await response.text()).toBe(JSON.stringify({ things: ['a', 'ü'] }));
  });

  it('is "not modified", without a body, to a client that holds those bytes', async () => {
    const response = await app.request('/api/things', { headers: { 'if-none-match': kept.etag } });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(kept.etag);
    expect(await response.text()).toBe('');
    const stale = await app.request('/api/things', { headers: { 'if-none-match': '"older"' } });
    expect(stale.status).toBe(200);
  });

  it('leaves a plain value’s answer as it was: JSON, no tag', async () => {
    const response = await app.request('/api/plain');
    expect(await response.json()).toEqual({ n: 1 });
    expect(response.headers.get('etag')).toBeNull();
  });
});
