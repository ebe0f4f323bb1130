/**
 * The stdio transport `baton mcp` serves on: newline-delimited JSON-RPC, as the SDK's own
 * `StdioServerTransport`, but one message too large is refused alone. The SDK's transport throws
 * away its buffer and closes when a line passes its 10 MiB limit — the process then exited 0 with
 * nothing said, and the agent lost Baton's tools for the rest of its run (an agent pasting a
 * large file into `add_note` was enough). Here that line is skipped as it streams in (never held
 * in memory), its request is answered with a JSON-RPC error naming the limit, a line goes to
 * stderr, and the next message is served as usual.
 */
import type { Readable, Writable } from 'node:stream';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's own limit per message; a tool's arguments are far smaller (notes stop at 32,000 characters). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** How much of an oversized line's start and end is kept to find its request id and method. */
const KEPT_EDGE = 4096;

/** The part of a line seen so far while it is over the limit: its edges and its size. */
interface Oversized {
  head: string;
  tail: Buffer;
  bytes: number;
}

export class LineLimitedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  private oversized: Oversized | undefined;
  private started = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  start(): Promise<void> {
    if (this.started) throw new Error('The stdio transport is already started.');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.buffered = 0;
    this.oversized = undefined;
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);

  private readonly onData = (chunk: Buffer): void => {
    let rest = chunk;
    for (;;) {
      const end = rest.indexOf(0x0a);
      if (end === -1) {
        this.hold(rest);
        return;
      }
      this.hold(rest.subarray(0, end));
      this.endLine();
      rest = rest.subarray(end + 1);
    }
  };

  /** Keeps part of the line being read, or only its edges once it is over the limit. */
  private hold(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized === undefined && this.buffered + part.length <= this.maxBytes) {
      this.chunks.push(part);
      this.buffered += part.length;
      return;
    }
    if (this.oversized === undefined) {
      const sofar = Buffer.concat(this.chunks);
      this.oversized = {
        head: sofar.subarray(0, KEPT_EDGE).toString('utf8'),
        tail: Buffer.alloc(0),
        bytes: 0,
      };
      this.chunks = [];
      this.buffered = 0;
      this.keepTail(sofar);
    }
    this.keepTail(part);
  }

  private keepTail(part: Buffer): void {
    const o = this.oversized!;
    o.bytes += part.length;
    const joined = Buffer.concat([o.tail, part.subarray(Math.max(0, part.length - KEPT_EDGE))]);
    o.tail = joined.subarray(Math.max(0, joined.length - KEPT_EDGE));
  }

  private endLine(): void {
    if (this.oversized !== undefined) {
      const line = this.oversized;
      this.oversized = undefined;
      void this.refuse(line);
      return;
    }
    const text = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.buffered = 0;
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (error) {
      // As the SDK does: a line that is not a JSON-RPC message is reported and skipped.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers the request of a line over the limit with an error; a notification (no id) is only logged. */
  private async refuse(line: Oversized): Promise<void> {
    const id = requestId(line.head, line.tail.toString('utf8'));
    const method = /"method"\s*:\s*"([^"\\]{1,100})"/.exec(line.head)?.[1];
    const tool = /"name"\s*:\s*"([^"\\]{1,100})"/.exec(line.head)?.[1];
    const what = method === 'tools/call' && tool !== undefined ? `the ${tool} call` : (method ?? 'a message');
    const limit = `${Math.round(this.maxBytes / 1024 / 1024)} MiB`;
    const message = `Baton refused ${what}: its message is ${line.bytes.toLocaleString('en')} bytes, over the ${limit} a message may have. Send less (a file's path rather than its content, or a summary); Baton's tools are still available.`;
    this.warn(`baton mcp: ${message}`);
    if (id === undefined) return;
    await this.send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message } });
  }
}

/**
 * The id of a request seen only by its edges: the SDK's clients write it last (`…,"id":7}`),
 * others first (`{"jsonrpc":"2.0","id":7,…`). A nested `"id"` deeper in the arguments is neither.
 */
export function requestId(head: string, tail: string): RequestId | undefined {
  const value = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
  const last = new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail.replace(/\r$/, ''));
  const first = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(
    head,
  );
  const raw = last?.[1] ?? first?.[1];
  if (raw === undefined) return undefined;
  return JSON.parse(raw) as RequestId;
}
