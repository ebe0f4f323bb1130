/**
 * A host's control socket: JSON lines in (`HostRequest`), one answer out per request. The
 * supervisor connects to send commands; the host counts requests in flight so it exits only once
 * every answer is written.
 */
import { existsSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { BatonError, errorMessage } from '../shared/errors.js';
import { HostRequest, type HostResponse } from './spec.js';

/** The connection a request came on: a hold lasts no longer than it (decision 461). */
export interface Asker {
  /** Calls `callback` once the connection has closed (at once when it already has). */
  whenGone(callback: () => void): void;
}

export class ControlSocket {
  private server: Server | undefined;
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];
  private open = 0;
  private unwatched: (() => void) | undefined;

  constructor(
    private readonly path: string,
    private readonly handle: (request: HostRequest, asker: Asker) => Promise<void>,
    /** Told of each connection opened and closed: a supervisor watching keeps one open. */
    private readonly peers: { connected(): void; disconnected(): void } = {
      connected: () => undefined,
      disconnected: () => undefined,
    },
  ) {}

  /** Requests being answered now, the asking one among them. */
  get inFlight(): number {
    return this.inflight;
  }

  listen(): Promise<void> {
    if (existsSync(this.path)) unlinkSync(this.path);
    this.server = createServer((socket) => this.serve(socket));
    return new Promise((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(this.path, () => resolve());
    });
  }

  close(): void {
    this.server?.close();
  }

  /** Calls `callback` each time the last open connection closes: no supervisor watches then. */
  whenUnwatched(callback: () => void): void {
    this.unwatched = callback;
  }

  /** Calls `callback` once no request is in flight (at once when none is). */
  whenIdle(callback: () => void): void {
    if (this.inflight === 0) callback();
    else this.idleWaiters.push(callback);
  }

  private serve(socket: Socket): void {
    this.peers.connected();
    this.open++;
    let closed = false;
    const asker: Asker = {
      whenGone: (callback) => (closed ? callback() : socket.once('close', callback)),
    };
    socket.once('close', () => {
      closed = true;
      this.peers.disconnected();
      this.open--;
      if (this.open === 0) this.unwatched?.();
    });
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        void this.respond(socket, asker, line);
      }
    });
  }

  private async respond(socket: Socket, asker: Asker, line: string): Promise<void> {
    this.inflight++;
    let id = 0;
    let response: HostResponse;
    try {
      const request = HostRequest.parse(JSON.parse(line));
      id = request.id;
      await this.handle(request, asker);
      response = { id, ok: true };
    } catch (error) {
      const code = error instanceof BatonError ? error.code : 'internal';
      response = { id, ok: false, error: { code, message: errorMessage(error) } };
    }
    const done = (): void => {
      this.inflight--;
      if (this.inflight === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
    };
    if (socket.destroyed) done();
    else socket.write(JSON.stringify(response) + '\n', done);
  }
}
