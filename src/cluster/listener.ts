/**
 * One LISTEN connection per process, shared by everything that waits on a channel. A dropped
 * connection is redialled with backoff; every (re)connect is reported, because notifications
 * sent while it was down are gone and whoever listens must catch up from the tables.
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { createLogger } from '../shared/log.js';
import { openClient } from './connect.js';

const log = createLogger('cluster.listener');

export interface Backoff {
  firstMs: number;
  maxMs: number;
  /**
   * How long a connection must stay up before the backoff starts over (default 5 s): a server that
   * accepts and then drops us at once is redialled ever more slowly, not every `firstMs`.
   */
  stableMs?: number;
}

interface ListenerEvents {
  /** A notification on one of the channels. */
  notification: [channel: string, payload: string];
  /** LISTEN is in place (first time, or again after a drop): read what may have been missed. */
  connected: [];
}

export class Listener extends EventEmitter<ListenerEvents> {
  private client: pg.Client | undefined;
  private closed = false;
  private attempt = 0;
  private retry: NodeJS.Timeout | undefined;
  private stable: NodeJS.Timeout | undefined;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly channels: readonly string[],
    private readonly backoff: Backoff = { firstMs: 50, maxMs: 2_000 },
  ) {
    super();
    this.setMaxListeners(0);
  }

  /**
   * Connects and LISTENs; rejects if that first attempt fails (later drops are retried). After a
   * rejection the next call tries again.
   */
  start(): Promise<void> {
    this.ready ??= this.connect().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  /** The server process id of the LISTEN connection (tests end it to prove a reconnect). */
  async backendPid(): Promise<number> {
    if (this.client === undefined) throw new Error('the listener is not connected');
    const { rows } = await this.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return rows[0]!.pid;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearTimeout(this.stable);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = await openClient(this.url, 'baton-listener');
    client.on('notification', (message) => this.emit('notification', message.channel, message.payload ?? ''));
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client, new Error('connection ended')));
    try {
      for (const channel of this.channels) {
        if (this.closed) break;
        await client.query(`LISTEN ${quoteIdent(channel)}`);
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    // close() may have run while LISTEN was in flight: this connection is then nobody's.
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.stable = setTimeout(() => (this.attempt = 0), this.backoff.stableMs ?? 5_000);
    this.emit('connected');
  }

  private dropped(client: pg.Client, error: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    clearTimeout(this.stable);
    client.end().catch(() => {});
    log.warn('LISTEN connection dropped; reconnecting', { error: error.message });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = Math.min(this.backoff.maxMs, this.backoff.firstMs * 2 ** this.attempt++);
    this.retry = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        log.warn('reconnecting the LISTEN connection failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        this.scheduleReconnect();
      });
    }, delay);
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
