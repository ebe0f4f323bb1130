/**
 * JSON-RPC over the stdio of `codex app-server`, one JSON message per line. A line that does not
 * parse, or is cut off when the process ends, is reported and skipped; it never throws.
 */
import type { ChildProcess } from 'node:child_process';
import { IncomingMessage } from './protocol.js';

export interface RpcHooks {
  onNotification(method: string, params: unknown): void;
  /** A request from the server; answer it with `respond`. */
  onRequest(id: string | number, method: string, params: unknown): void;
  onMalformed(reason: string, line: string): void;
}

export class RpcError extends Error {
  constructor(
    readonly method: string,
    message: string,
    readonly code?: number,
  ) {
    super(`${method}: ${message}`);
    this.name = 'RpcError';
  }
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

const MAX_LINE = 64 * 1024 * 1024;

export class RpcConnection {
  private nextId = 1;
  private readonly pending = new Map<string | number, Pending>();
  private buffer = '';
  private closedWith: string | undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly hooks: RpcHooks,
  ) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.receive(chunk));
    child.stdout?.on('end', () => this.flushAtEnd());
    // A write after the process died fails asynchronously; the exit is reported elsewhere.
    child.stdin?.on('error', () => undefined);
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.closedWith !== undefined) return Promise.reject(new RpcError(method, this.closedWith));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.send({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  respond(id: string | number, result: unknown): void {
    this.send({ id, result });
  }

  respondError(id: string | number, code: number, message: string): void {
    this.send({ id, error: { code, message } });
  }

  /** Fails every request still waiting, e.g. when the process has exited. */
  close(reason: string): void {
    this.closedWith = reason;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(new RpcError(pending.method, reason));
    }
  }

  private send(message: Record<string, unknown>): void {
    if (this.closedWith !== undefined || this.child.stdin?.writable !== true) return;
    this.child.stdin.write(JSON.stringify(message) + '\n');
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      this.dispatch(line);
      newline = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > MAX_LINE) {
      this.hooks.onMalformed('line too long', this.buffer.slice(0, 200));
      this.buffer = '';
    }
  }

  private flushAtEnd(): void {
    const rest = this.buffer;
    this.buffer = '';
    if (rest.trim() !== '') this.hooks.onMalformed('truncated at exit', rest);
  }

  private dispatch(line: string): void {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.hooks.onMalformed('not JSON', line);
      return;
    }
    const parsed = IncomingMessage.safeParse(json);
    if (!parsed.success) {
      this.hooks.onMalformed('not a JSON-RPC message', line);
      return;
    }
    const { id, method, params, result, error } = parsed.data;
    if (method !== undefined && id !== undefined) this.hooks.onRequest(id, method, params);
    else if (method !== undefined) this.hooks.onNotification(method, params);
    else if (id !== undefined) this.settle(id, result, error);
    else this.hooks.onMalformed('neither a request, a notification nor a response', line);
  }

  private settle(id: string | number, result: unknown, error: IncomingMessage['error']): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    if (error !== undefined) pending.reject(new RpcError(pending.method, error.message, error.code));
    else pending.resolve(result);
  }
}
