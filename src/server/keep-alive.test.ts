/**
 * Kept-alive connections (decision 171): the server keeps an idle connection far longer than any
 * client of ours does, so a client reusing one never meets a socket the server is closing. With
 * short injected times, a client reuses an idle connection right at the server's old timeout.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerType } from '@hono/node-server';
import { KEEP_ALIVE } from '../api/client.js';
import { apiAgent } from '../cli/client.js';
import { closeListener, listen } from './startup.js';

let server: ServerType | undefined;
afterEach(() => {
  if (server !== undefined) closeListener(server);
  server = undefined;
});

/** Node's old default for both sides, scaled down: the moment at which the reuse used to race. */
const OLD_MS = 300;

const hello = (): Response => Response.json({ ok: true });

/** One request on an open raw connection; resolves with the status line, rejects when the server has closed it. */
function ask(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      if (!text.includes('\r\n\r\n') || !text.includes('{"ok":true}')) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(text.split('\r\n')[0] ?? '');
    };
    const onClose = (): void => reject(new Error('other side closed'));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write('GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
  });
}

async function reuseAfter(keepAliveMs: number, idleMs: number): Promise<string> {
  const listening = await listen(hello, 0, { keepAliveMs, headersMs: keepAliveMs + 100 });
  server = listening.server;
  const socket = connect(listening.port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  try {
    expect(await ask(socket)).toBe('HTTP/1.1 200 OK');
    // The client keeps the connection idle as long as the server used to, then reuses it.
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    return await ask(socket);
  } finally {
    socket.destroy();
  }
}

describe('kept-alive connections', () => {
  it('a connection reused right at the old keep-alive time is still open', async () => {
    // The server's time in the same proportion to the client's as the real ones.
    const keepAliveMs = Math.round((OLD_MS * KEEP_ALIVE.serverMs) / KEEP_ALIVE.clientIdleMs);
    expect(await reuseAfter(keepAliveMs, OLD_MS)).toBe('HTTP/1.1 200 OK');
  });

  it("keep the server's times above every client's idle time, and the headers' above the keep-alive's", () => {
    // Node's client goes by the server's Keep-Alive hint less 1 s when that is shorter than its own.
    expect(KEEP_ALIVE.serverMs - 1_000).toBeGreaterThan(KEEP_ALIVE.clientIdleMs * 2);
    expect(KEEP_ALIVE.serverHeadersMs).toBeGreaterThan(KEEP_ALIVE.serverMs);
    // Node's Agent keeps its options (typed only in part).
    const agent = apiAgent as unknown as { options: { timeout?: number }; keepAlive: boolean };
    expect(agent.options.timeout).toBe(KEEP_ALIVE.clientIdleMs);
    expect(agent.keepAlive).toBe(true);
  });

  it('the real listener advertises its keep-alive time to clients', async () => {
    const listening = await listen(hello, 0);
    server = listening.server;
    const socket = connect(listening.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const head = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\r\n\r\n')) resolve(text);
      });
      socket.write('GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    socket.destroy();
    expect(head.toLowerCase()).toContain(`keep-alive: timeout=${KEEP_ALIVE.serverMs / 1000}`);
  });
});
