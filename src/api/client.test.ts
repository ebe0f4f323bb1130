import { describe, expect, it } from 'vitest';
import { ApiClient, requestLine, type TransportRequest } from './client.js';

function recording(status: number, text: string) {
  const sent: TransportRequest[] = [];
  const client = new ApiClient(
    async (request) => {
      sent.push(request);
      return { status, text, header: () => undefined };
    },
    (code, body) => new Error(`${code} ${body?.error.code ?? '-'}: ${body?.error.message ?? text}`),
  );
  return { client, sent };
}

describe('the typed API client', () => {
  it('derives method, path and query from the route key, encoding what it fills in', () => {
    expect(requestLine('POST /api/sessions/:ref/reply', { params: { ref: 'a b/c' } })).toEqual({
      method: 'POST',
      path: '/api/sessions/a%20b%2Fc/reply',
    });
    expect(
      requestLine('GET /api/sessions/:ref/events', {
        params: { ref: 'x' },
        query: { follow: true, after: 3 },
      }).path,
    ).toBe('/api/sessions/x/events?follow=1&after=3');
    expect(requestLine('GET /api/sessions', { query: { project: undefined } }).path).toBe('/api/sessions');
  });

  it('sends the body as JSON and answers with the parsed response', async () => {
    const { client, sent } = recording(200, '{"session":{"id":"s1"}}');
    const { session } = await client.call('POST /api/sessions/:ref/reply', {
      params: { ref: 's1' },
      body: { text: 'go on' },
    });
    expect(session.id).toBe('s1');
    expect(sent).toEqual([{ method: 'POST', path: '/api/sessions/s1/reply', body: '{"text":"go on"}' }]);
  });

  it("hands error answers to the caller's mapper, with the API's error body when there is one", async () => {
    await expect(
      recording(404, '{"error":{"code":"not_found","message":"No session"}}').client.call('GET /api/inbox'),
    ).rejects.toThrow('404 not_found: No session');
    await expect(recording(502, 'Bad gateway').client.call('GET /api/inbox')).rejects.toThrow(
      '502 -: Bad gateway',
    );
  });

  it('is checked by the compiler against the tables', () => {
    const { client } = recording(200, '{}');
    const never = (): void => {
      // @ts-expect-error the reply body needs text
      void client.call('POST /api/sessions/:ref/reply', { params: { ref: 's1' }, body: {} });
      // @ts-expect-error the path has a :ref
      void client.call('GET /api/sessions/:ref/peek', {});
      // @ts-expect-error no such route
      void client.call('GET /api/nothing');
      // @ts-expect-error the diff is text, not JSON
      void client.call('GET /api/sessions/:ref/diff', { params: { ref: 's1' } });
    };
    expect(never).toBeTypeOf('function');
  });
});
