import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { watch } from 'node:fs/promises';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestBaton } from '../support/baton.js';

let t: TestBaton;
beforeEach(() => {
  t = new TestBaton();
});
afterEach(() => t.cleanup());

function target(): { base: string; headers: Record<string, string> } {
  const { port } = JSON.parse(readFileSync(join(t.home, 'supervisor.json'), 'utf8')) as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    headers: { authorization: `Bearer ${readFileSync(join(t.home, 'token'), 'utf8').trim()}` },
  };
}

/** Resolves with the answer's status and body; the server may answer (and close) before the whole body is sent. */
function send(req: ClientRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
  });
}

/** A raw kept-alive connection to the supervisor: what it was sent, and a wait for its n-th answer. */
async function rawConnection(port: string): Promise<{
  socket: Socket;
  received: () => string;
  answers: (n: number) => Promise<void>;
}> {
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = once(socket, 'close');
  const answers = async (n: number): Promise<void> => {
    while ((received.match(/HTTP\/1\.1 \d{3} /g) ?? []).length < n)
      await Promise.race([
        once(socket, 'data'),
        closed.then(() => Promise.reject(new Error(`closed: ${received}`))),
      ]);
  };
  return { socket, received: () => received, answers };
}

interface LogLine {
  level: string;
  msg: string;
}

function logLines(): LogLine[] {
  return readFileSync(join(t.home, 'supervisor.log'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        // Anything printed to stderr (a stack trace, say) is not a log record, and is treated as an error.
        return { level: 'error', msg: line };
      }
    });
}

/** Waits on file notifications until the supervisor's log satisfies `enough`. */
async function waitForLog(enough: (lines: LogLine[]) => boolean): Promise<void> {
  const file = join(t.home, 'supervisor.log');
  if (enough(logLines())) return;
  const controller = new AbortController();
  try {
    for await (const change of watch(file, { signal: controller.signal }))
      if (change.filename !== null && enough(logLines())) return;
  } finally {
    controller.abort();
  }
}

describe('request bodies are limited', () => {
  it('answers 413 with the JSON error naming the limit to a 2 MB body, and goes on answering', async () => {
    await t.ok(['daemon', 'start']);
    const { base, headers } = target();
    const body = JSON.stringify({ text: 'x'.repeat(2 * 1024 * 1024) });

    // With a Content-Length (as the CLI and browsers send): refused by its length.
    const req = request(`${base}/api/sessions/nope/reply`, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    const answer = send(req);
    req.end(body);
    const { status, body: text } = await answer;
    expect(status).toBe(413);
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 'too_large',
        message: 'The request body is larger than the limit of 1048576 bytes.',
        data: { limitBytes: 1048576 },
      },
    });

    // Chunked (no length given), sent in pieces as a streaming client does, and larger still:
    // counted while read, refused at the limit, the rest read and dropped, so the answer arrives
    // instead of a cut connection.
    for (const size of [2, 20]) {
      const chunked = request(`${base}/api/sessions/nope/reply`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
      });
      let answered = false;
      const refused = send(chunked).finally(() => (answered = true));
      const big = JSON.stringify({ text: 'x'.repeat(size * 1024 * 1024) });
      // Like curl: stop sending once the answer has come.
      for (let at = 0; at < big.length && !answered; at += 64 * 1024) {
        if (!chunked.write(big.slice(at, at + 64 * 1024)))
          await Promise.race([once(chunked, 'drain'), refused]);
      }
      chunked.end();
      const answer = await refused;
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'too_large' } });
    }

    await expect(t.client().call('GET /api/health')).resolves.toMatchObject({ ok: true });
    expect(await t.run(['ls'])).toMatchObject({ code: 0 });
  });
  it('keeps a connection that was answered 413 usable once the client has sent the rest', async () => {
    await t.ok(['daemon', 'start']);
    const { base, headers } = target();
    const { port } = new URL(base);
    const { socket, received, answers } = await rawConnection(port);
    const big = 'x'.repeat(2 * 1024 * 1024);
    const head = (path: string, length: number): string =>
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${headers.authorization}\r\n` +
      `content-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
    // An upload over the limit: refused by its length with the first bytes, answered at once.
    socket.write(head('/api/sessions/nope/reply', big.length) + big.slice(0, 64 * 1024));
    await answers(1);
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
    // A client on a busy machine sends the rest later than the HTTP adapter's own drain used to
    // wait (500 ms), then reuses the kept-alive connection, as Node's agent does.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    socket.write(big.slice(64 * 1024));
    const small = JSON.stringify({ text: 'hi' });
    socket.write(head('/api/sessions/nope/reply', small.length) + small);
    await answers(2);
    expect(received().match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 404']);
    socket.destroy();
  });
  it('answers the next request on a connection whose body no handler read', async () => {
    await t.ok(['daemon', 'start']);
    const { base, headers } = target();
    const { port } = new URL(base);
    const { socket, received, answers } = await rawConnection(port);
    // A route that takes no body, sent one anyway (1 MB, within the limit), then a second request on the same connection.
    const body = 'x'.repeat(1_000_000);
    socket.write(
      `POST /api/routines/nope/pause HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${headers.authorization}\r\n` +
        `content-type: text/plain\r\ncontent-length: ${body.length}\r\n\r\n${body}` +
        `GET /api/health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${headers.authorization}\r\n\r\n`,
    );
    await answers(2);
    expect(received().match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 404', 'HTTP/1.1 200']);
    socket.destroy();
  });
});

describe('a body no one may send is not held (decision 331)', () => {
  it('answers unauthenticated hook and API calls from their headers while their bodies never come, and a good hook call still fires', async () => {
    const repo = t.repo();
    const routine = await t.json<{ id: string; token: string }>(
      [
        'routine',
        'add',
        'hook',
        '--on',
        'http',
        '--agent',
        'scripted',
        '--prompt',
        'deployed',
        '--script',
        t.script([{ say: 'deployed' }]),
        '--json',
      ],
      { cwd: repo },
    );
    const { base, headers } = target();
    const { port } = new URL(base);
    // Each announces a megabyte and sends a few bytes of it: before, each body was awaited whole
    // (with no deadline) before the routine's token was looked at, and 300 such held 277 MB.
    const head = (path: string, authorization: string): string =>
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${authorization}` +
      `content-type: application/json\r\ncontent-length: 1000000\r\n\r\n{"detail":{"x":"`;
    const connections = await Promise.all(Array.from({ length: 200 }, () => rawConnection(port)));
    connections.forEach(({ socket }, i) =>
      socket.write(
        i % 4 === 0
          ? head(`/api/hooks/routines/${routine.id}`, '')
          : i % 4 === 1
            ? head(`/api/hooks/routines/${routine.id}`, `authorization: ${headers.authorization}\r\n`)
            : i % 4 === 2
              ? head(`/api/hooks/routines/${routine.id}`, 'authorization: Bearer wrong\r\n')
              : head('/api/sessions/nope/reply', 'authorization: Bearer wrong\r\n'),
      ),
    );
    await Promise.all(connections.map(({ answers }) => answers(1)));
    const statuses = connections.map(({ received }) => /^HTTP\/1\.1 (\d{3}) /.exec(received())?.[1]);
    expect(statuses.filter((s) => s === '403').length).toBe(150);
    expect(statuses.filter((s) => s === '401').length).toBe(50);
    // With all of them still open, the routine's own token fires it.
    const ok = await fetch(`${base}/api/hooks/routines/${routine.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${routine.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ detail: { version: '2.0' } }),
    });
    expect(ok.status).toBe(201);
    // A hook's body is a few strings: a large one is refused by its length.
    const large = await fetch(`${base}/api/hooks/routines/${routine.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${routine.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ detail: { x: 'y'.repeat(100_000) } }),
    });
    expect(large.status).toBe(413);
    for (const { socket } of connections) socket.destroy();
  });
});

describe('a client that goes away is not an error', () => {
  it('logs no error when /api/stream is cut by its client, at any point, with events still coming', async () => {
    const repo = t.repo();
    await t.ok(['dispatch', 'x', '--name', 'board', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    await t.waitForState('board', 'ready_for_review');
    const { base, headers } = target();
    const cuts: [string, string | undefined][] = [
      ['/api/stream', undefined], // as soon as the answer starts
      ['/api/stream', 'event: snapshot'], // after the snapshot
      ['/api/stream?after=0', 'event: workspace'], // mid-replay
      ['/api/stream?sessions=0&after=0', 'event: workspace'],
    ];
    for (const [path, until] of cuts) {
      const stream = request(`${base}${path}`, { headers });
      stream.on('error', () => undefined);
      stream.end();
      const [res] = (await once(stream, 'response')) as [IncomingMessage];
      expect(res.statusCode).toBe(200);
      res.setEncoding('utf8');
      let seen = '';
      if (until !== undefined) {
        for await (const chunk of res) {
          seen += chunk as string;
          if (seen.includes(until)) break;
        }
      }
      stream.destroy();
    }
    // Events after the hang-ups: a stream that still wrote to its gone client would fail here.
    await t.ok(['pin', 'board']);
    await t.ok(['unpin', 'board']);
    await waitForLog(
      (lines) =>
        lines.some((line) => line.level === 'error') ||
        lines.filter((line) => /workspace stream aborted by the client/.test(line.msg)).length >= cuts.length,
    );
    expect(logLines().filter((line) => !['debug', 'info', 'warn'].includes(line.level))).toEqual([]);
  });

  it('logs no error when a stream or a request is cut by its client', async () => {
    const repo = t.repo();
    await t.ok(['dispatch', 'x', '--name', 'cut', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    await t.waitForState('cut', 'ready_for_review');
    const { base, headers } = target();

    // Mid-stream: follow the events until the stream is live, then hang up.
    const stream = request(`${base}/api/sessions/cut/events?follow=1`, { headers });
    stream.on('error', () => undefined);
    stream.end();
    const [res] = (await once(stream, 'response')) as [IncomingMessage];
    res.setEncoding('utf8');
    let seen = '';
    for await (const chunk of res) {
      seen += chunk as string;
      if (seen.includes('event: live')) break;
    }
    stream.destroy();

    // Mid-request: half a body, then hang up.
    const half = request(`${base}/api/sessions/cut/reply`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': '1000' },
    });
    half.on('error', () => undefined);
    // Hang up once the headers and the half body are handed to the kernel: the server then reads
    // them before it sees the connection close (a hang-up before that is no request at all).
    await new Promise<void>((resolve) => half.write('{"text": "never fin', () => resolve()));
    half.destroy();

    // The supervisor notes both hang-ups; an error (or a stack trace on stderr) would show first.
    await waitForLog(
      (lines) =>
        lines.some((line) => line.level === 'error') ||
        lines.filter((line) => /aborted by the client/.test(line.msg)).length >= 2,
    );
    expect(logLines().filter((line) => !['debug', 'info', 'warn'].includes(line.level))).toEqual([]);
  });
});
