import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineLimitedStdioTransport, requestId } from './stdio.js';

function wire(maxBytes: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const warnings: string[] = [];
  const received: JSONRPCMessage[] = [];
  const transport = new LineLimitedStdioTransport(stdin, stdout, maxBytes, (line) => warnings.push(line));
  transport.onmessage = (message) => received.push(message);
  const sent: string[] = [];
  stdout.on('data', (chunk: Buffer) => sent.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  return { stdin, transport, warnings, received, sent };
}

const call = (id: number, text: string): string =>
  JSON.stringify({
    method: 'tools/call',
    params: { name: 'add_note', arguments: { text } },
    jsonrpc: '2.0',
    id,
  });

describe('the line-limited stdio transport', () => {
  it('refuses one message over the limit with a JSON-RPC error for its id, and serves the next', async () => {
    const { stdin, transport, warnings, received, sent } = wire(1000);
    await transport.start();
    const big = call(7, 'x'.repeat(5000));
    // Streamed in pieces, as a pipe delivers it, with the next message in the same chunk as its end.
    stdin.write(big.slice(0, 700));
    stdin.write(big.slice(700, 3000));
    stdin.write(big.slice(3000) + '\n' + call(8, 'small') + '\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([JSON.parse(call(8, 'small'))]);
    expect(sent).toHaveLength(1);
    const answer = JSON.parse(sent[0]!) as { id: number; error: { code: number; message: string } };
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toMatch(/refused the add_note call: its message is 5,0\d\d bytes/);
    expect(warnings).toHaveLength(1);
  });

  it('finds the id first or last, and leaves nested ids and notifications unanswered', () => {
    expect(requestId('{"jsonrpc":"2.0","id":"a-1","method":"x"', '')).toBe('a-1');
    expect(requestId('{"method":"x"', ',"jsonrpc":"2.0","id":12}\r')).toBe(12);
    expect(requestId('{"method":"x","params":{"id":3', '"id":3}}}')).toBeUndefined();
    expect(requestId('{"method":"notifications/x"', '"params":{}}')).toBeUndefined();
  });

  it('reports a line that is not JSON-RPC and goes on', async () => {
    const { stdin, transport, received } = wire(1000);
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    stdin.write('not json\n' + call(1, 'ok') + '\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
    expect(received).toHaveLength(1);
  });
});
