/**
 * What every machine of a workspace spent, for the budgets they share (decision 131). Each machine
 * is the only writer of its own rows: per minute, the total its sessions spent in that minute
 * (absolute, so writing a minute again is harmless) and the time of its latest spend. A write
 * NOTIFYs `baton_spend`; the others read the rows changed since the newest change they saw (less
 * an overlap, so a transaction that committed late is still read) and keep them as one series.
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { SpendLog, type SpendSeries } from '../usage/index.js';
import type { Listener } from './listener.js';
import { inTransaction } from './transaction.js';
import { RetryTimer } from '../shared/retry.js';

export const SPEND_CHANNEL = 'baton_spend';
const MINUTE_MS = 60_000;
/** Rows changed this long before the newest seen are read again: a write that committed late is not missed. */
const OVERLAP_MS = 30_000;
/** Own rows older than this are deleted at start. */
const KEEP_MS = 35 * 24 * 3_600_000;

export interface SpendTiming {
  /** First retry of a failed write, doubling up to `maxMs`. */
  firstMs: number;
  maxMs: number;
}

export interface SharedSpendOptions {
  pool: pg.Pool;
  listener: Listener;
  machine: string;
  /** This machine's own spends (its usage ledger's series). */
  mine: () => SpendLog;
  /** How far back the others' spends are read (the longest budget window, a day at least). */
  horizonMs: () => number;
  clock?: () => Date;
  timing?: SpendTiming;
  logger: { warn(message: string, data?: Record<string, unknown>): void };
}

interface Row {
  machine: string;
  minute: Date;
  last_at: Date;
  usd: number;
  updated_at: Date;
}

export class SharedSpend {
  private readonly others = new Map<string, { at: number; usd: number }>();
  private series: SpendLog = new SpendLog();
  private newest: Date | undefined;
  private readonly dirty = new Set<number>();
  private writing: Promise<void> | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private readonly retry: RetryTimer;
  private closed = false;
  private readonly changes = new EventEmitter<{ change: [] }>();
  private readonly unlisten: () => void;

  constructor(private readonly o: SharedSpendOptions) {
    this.retry = new RetryTimer(() => void this.flush(), o.timing);
    const onNotification = (channel: string): void => {
      if (channel === SPEND_CHANNEL) void this.read();
    };
    const onConnected = (): void => {
      // What changed while the connection was down is unknown: everything is read again, and this
      // machine's minutes written again (a write that failed meanwhile may have given up waiting).
      this.newest = undefined;
      void this.read();
      this.markMine();
      void this.flush();
    };
    o.listener.on('notification', onNotification);
    o.listener.on('connected', onConnected);
    this.unlisten = () => {
      o.listener.off('notification', onNotification);
      o.listener.off('connected', onConnected);
    };
  }

  /** Publishes this machine's spends within the horizon and reads the others'. */
  async start(): Promise<void> {
    const now = this.clock().getTime();
    // Queued first: a store that is away now gets them when it is back (the writes retry).
    this.markMine();
    await this.o.pool
      .query('DELETE FROM spend_minutes WHERE machine = $1 AND minute < $2', [
        this.o.machine,
        new Date(now - KEEP_MS),
      ])
      .catch((error: unknown) => {
        this.o.logger.warn('could not delete old spend rows; kept for now', {
          error: error instanceof Error ? error.message : String(error),
        });
      });
    await this.flush();
    await this.read();
  }

  /** This machine's minutes within the horizon, to be written (again: absolute totals, so harmless). */
  private markMine(): void {
    const now = this.clock().getTime();
    for (const spend of this.o.mine().within(now - this.o.horizonMs(), now))
      this.dirty.add(minuteOf(spend.at));
  }

  /**
   * The horizon may have grown (a longer window budget): this machine's spends within it are
   * published again and the others' read again from scratch.
   */
  horizonChanged(): void {
    this.markMine();
    void this.flush();
    this.newest = undefined;
    void this.read();
  }

  /** A spend of this machine at `at` (ms): its minute is written again, in the background. */
  spent(at: number): void {
    this.dirty.add(minuteOf(at));
    void this.flush();
  }

  /** The other machines' spends, each minute's total at the time of its latest spend. */
  elsewhere(): SpendSeries {
    return this.series;
  }

  /** Called after the other machines' spends changed. */
  onChange(listener: () => void): () => void {
    this.changes.on('change', listener);
    return () => void this.changes.off('change', listener);
  }

  /** Resolves once the writes asked for so far are in (or failed and wait for their retry). */
  settled(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  close(): void {
    this.closed = true;
    this.retry.cancel();
    this.unlisten();
    this.changes.removeAllListeners();
  }

  private clock(): Date {
    return (this.o.clock ?? (() => new Date()))();
  }

  /** Writes the dirty minutes, one at a time in order; a failure keeps them for a retry with backoff. */
  private flush(): Promise<void> {
    if (this.writing !== undefined || this.closed) return this.writing ?? Promise.resolve();
    this.writing = (async () => {
      while (this.dirty.size > 0 && !this.closed) {
        const minutes = [...this.dirty].sort((a, b) => a - b);
        this.dirty.clear();
        try {
          await this.write(minutes);
          this.retry.succeeded();
        } catch (error) {
          for (const minute of minutes) this.dirty.add(minute);
          this.o.logger.warn("could not share this machine's spend; trying again", {
            minutes: minutes.length,
            error: error instanceof Error ? error.message : String(error),
          });
          this.retry.failed();
          return;
        }
      }
    })().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async write(minutes: readonly number[]): Promise<void> {
    const mine = this.o.mine();
    await inTransaction(this.o.pool, async (client) => {
      for (const minute of minutes) {
        const spends = mine.within(minute - 1, minute + MINUTE_MS - 1);
        const usd = spends.reduce((total, spend) => total + spend.amount, 0);
        const last = spends.at(-1)?.at ?? minute;
        await client.query(
          `INSERT INTO spend_minutes (machine, minute, last_at, usd, updated_at) VALUES ($1, $2, $3, $4, clock_timestamp())
           ON CONFLICT (machine, minute) DO UPDATE SET last_at = EXCLUDED.last_at, usd = EXCLUDED.usd, updated_at = clock_timestamp()`,
          [this.o.machine, new Date(minute), new Date(last), usd],
        );
      }
      await client.query('SELECT pg_notify($1, $2)', [SPEND_CHANNEL, this.o.machine]);
    });
  }

  /** Reads the others' rows changed since the newest seen (all within the horizon the first time); coalesced. */
  private read(): Promise<void> {
    if (this.reading !== undefined) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        try {
          await this.readOnce();
        } catch (error) {
          if (!this.closed)
            this.o.logger.warn("could not read the other machines' spend", {
              error: error instanceof Error ? error.message : String(error),
            });
        }
      } while (this.readAgain && !this.closed);
    })().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const since = new Date(this.clock().getTime() - this.o.horizonMs());
    const changedAfter =
      this.newest === undefined ? new Date(0) : new Date(this.newest.getTime() - OVERLAP_MS);
    const { rows } = await this.o.pool.query<Row>(
      'SELECT machine, minute, last_at, usd, updated_at FROM spend_minutes WHERE machine <> $1 AND minute >= $2 AND updated_at >= $3',
      [this.o.machine, since, changedAfter],
    );
    if (this.newest === undefined) this.others.clear();
    let changed = this.newest === undefined;
    for (const row of rows) {
      const key = `${row.machine}|${row.minute.getTime()}`;
      const before = this.others.get(key);
      if (before?.usd !== row.usd || before.at !== row.last_at.getTime()) changed = true;
      this.others.set(key, { at: row.last_at.getTime(), usd: row.usd });
      if (this.newest === undefined || row.updated_at > this.newest) this.newest = row.updated_at;
    }
    this.newest ??= new Date(0);
    for (const [key, spend] of this.others) {
      if (spend.at >= since.getTime()) continue;
      this.others.delete(key);
      changed = true;
    }
    if (!changed) return;
    const series = new SpendLog();
    for (const spend of [...this.others.values()].sort((a, b) => a.at - b.at))
      series.add(spend.at, spend.usd);
    this.series = series;
    this.changes.emit('change');
  }
}

function minuteOf(at: number): number {
  return Math.floor(at / MINUTE_MS) * MINUTE_MS;
}
