/**
 * The workspace log on PostgreSQL: the same events as the SQLite bus (src/bus), one global
 * sequence, shared by every machine. A publisher stores and NOTIFYs in one transaction that holds
 * a transaction-level advisory lock, so sequence order is commit order: a follower that reads
 * `seq > last` never skips an event whose transaction commits late (without the lock, 421 of
 * 3,000 notifications from 3 publishers arrived after a higher seq). Followers treat a
 * notification only as a wake-up and read the table, so a dropped notification (or connection)
 * costs latency, never an event.
 */
import type pg from 'pg';
import type { z } from 'zod';
import { WORKSPACE_EVENTS, type WorkspaceEventDefinition } from '../events/workspace.js';
import { InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { CLUSTER_EVENTS } from './events.js';
import type { Listener } from './listener.js';
import { LOCKS } from './schema.js';

export const BUS_CHANNEL = 'baton_bus';
const PAGE = 1_000;
const log = createLogger('cluster.bus');

export interface LoggedEvent {
  seq: number;
  ts: string;
  type: string;
  data: unknown;
}

export type Clock = () => Date;

// The cluster's own events (src/cluster/events.ts) share the log but not the workspace's list.
const DEFINITIONS = new Map<string, WorkspaceEventDefinition>(
  [...WORKSPACE_EVENTS, ...CLUSTER_EVENTS].map((definition) => [definition.type, definition]),
);

/** Only the events of one type, and (optionally) not those a given machine published. */
export interface LogFilter {
  type: string;
  notMachine?: string;
}

export interface Follow {
  /** Stops delivering; resolves once no callback is running. */
  close(): Promise<void>;
}

export class PgWorkspaceLog {
  constructor(
    /** Public for the cluster's own lookups on `workspace_events` (the session mirror's). */
    readonly pool: pg.Pool,
    private readonly listener: Listener,
    private readonly clock: Clock = () => new Date(),
  ) {}

  /** Validates one event against its definition, stores it and wakes every follower; returns its seq. */
  async append(type: string, data: unknown): Promise<LoggedEvent> {
    const checked = validated(type, data);
    const at = this.clock();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN; SELECT pg_advisory_xact_lock(' + String(LOCKS.bus) + ')');
      const { rows } = await client.query<{ seq: string }>(
        `WITH stored AS (INSERT INTO workspace_events (at, type, data) VALUES ($1, $2, $3) RETURNING seq)
         SELECT seq, pg_notify('${BUS_CHANNEL}', seq::text) FROM stored`,
        [at, type, JSON.stringify(checked)],
      );
      await client.query('COMMIT');
      return { seq: Number(rows[0]!.seq), ts: at.toISOString(), type, data: checked };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Several events in one transaction (one lock, one INSERT, one wake-up), their seqs in the
   * order given; all or none is stored. For a publisher with a backlog (the workspace relay).
   */
  async appendMany(events: readonly { type: string; data: unknown }[]): Promise<LoggedEvent[]> {
    if (events.length === 0) return [];
    const checked = events.map((event) => validated(event.type, event.data));
    const at = this.clock();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN; SELECT pg_advisory_xact_lock(' + String(LOCKS.bus) + ')');
      // Rows are produced (and their seqs drawn) in ordinality order, so seqs follow the order given.
      const { rows } = await client.query<{ seqs: string[] }>(
        `WITH stored AS (
           INSERT INTO workspace_events (at, type, data)
           SELECT $1, u.type, u.data::jsonb FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(type, data, n) ORDER BY u.n
           RETURNING seq)
         SELECT array_agg(seq ORDER BY seq)::text[] AS seqs, pg_notify('${BUS_CHANNEL}', max(seq)::text) FROM stored`,
        [at, events.map((event) => event.type), checked.map((data) => JSON.stringify(data))],
      );
      await client.query('COMMIT');
      const seqs = rows[0]!.seqs;
      return events.map((event, i) => ({
        seq: Number(seqs[i]),
        ts: at.toISOString(),
        type: event.type,
        data: checked[i],
      }));
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** The newest seq in the log (0: empty): where a follower that wants only what comes next starts. */
  async head(): Promise<number> {
    const { rows } = await this.pool.query<{ seq: string | null }>(
      'SELECT max(seq) AS seq FROM workspace_events',
    );
    return Number(rows[0]?.seq ?? 0);
  }

  /** Events after `afterSeq`, oldest first (at most `limit`), of the filter's type when one is given. */
  async list(afterSeq = 0, limit = PAGE, filter?: LogFilter): Promise<LoggedEvent[]> {
    const { rows } = await this.pool.query<{ seq: string; at: Date; type: string; data: unknown }>(
      filter === undefined
        ? 'SELECT seq, at, type, data FROM workspace_events WHERE seq > $1 ORDER BY seq LIMIT $2'
        : `SELECT seq, at, type, data FROM workspace_events WHERE seq > $1 AND type = $3 AND ($4::text IS NULL OR data->>'machine' <> $4) ORDER BY seq LIMIT $2`,
      filter === undefined ? [afterSeq, limit] : [afterSeq, limit, filter.type, filter.notMachine ?? null],
    );
    return rows.map((row) => ({
      seq: Number(row.seq),
      ts: row.at.toISOString(),
      type: row.type,
      data: row.data,
    }));
  }

  /**
   * Replays every event after `afterSeq`, then delivers new ones as they commit, each exactly
   * once and in seq order; `onEvent` is awaited before the next. Catches up after the listener
   * reconnects, and retries a failed read with backoff.
   */
  async follow(
    afterSeq: number,
    onEvent: (event: LoggedEvent) => void | Promise<void>,
    filter?: LogFilter,
  ): Promise<Follow> {
    let last = afterSeq;
    let closed = false;
    let pending = false;
    let running: Promise<void> | undefined;
    let retry: NodeJS.Timeout | undefined;
    let failures = 0;

    const drain = async (): Promise<void> => {
      do {
        pending = false;
        for (;;) {
          if (closed) return;
          const page = await this.list(last, PAGE, filter);
          for (const event of page) {
            if (closed) return;
            await onEvent(event);
            last = event.seq;
          }
          if (page.length < PAGE) break;
        }
      } while (pending && !closed);
    };
    const wake = (): void => {
      if (closed) return;
      // A read in progress, or a failed one waiting out its backoff, picks this up when it runs.
      if (running !== undefined || retry !== undefined) {
        pending = true;
        return;
      }
      running = drain()
        .then(() => {
          failures = 0;
        })
        .catch((error: unknown) => {
          if (closed) return;
          log.warn('reading the workspace log failed; retrying', {
            error: error instanceof Error ? error.message : String(error),
            after: last,
          });
          retry = setTimeout(
            () => {
              retry = undefined;
              wake();
            },
            Math.min(2_000, 50 * 2 ** failures++),
          );
        })
        .finally(() => {
          running = undefined;
          if (pending && retry === undefined) wake();
        });
    };
    const onNotification = (channel: string): void => {
      if (channel === BUS_CHANNEL) wake();
    };
    const detach = (): void => {
      this.listener.off('notification', onNotification);
      this.listener.off('connected', wake);
    };
    this.listener.on('notification', onNotification);
    this.listener.on('connected', wake);
    try {
      await this.listener.start();
    } catch (error) {
      detach();
      throw error;
    }
    // LISTEN is in place before the first read, so nothing committed after it goes unheard.
    wake();
    return {
      close: async () => {
        closed = true;
        clearTimeout(retry);
        retry = undefined;
        detach();
        await running;
      },
    };
  }
}

/** The event's data as its definition parses it; a named error for an unknown type or bad data. */
function validated(type: string, data: unknown): unknown {
  const definition = DEFINITIONS.get(type);
  if (definition === undefined)
    throw new InvalidInputError(`Unknown workspace event type "${type}".`, { key: 'type', type });
  const parsed = definition.schema.safeParse(data);
  if (!parsed.success) throw badData(type, parsed.error);
  return parsed.data;
}

function badData(type: string, error: z.ZodError): InvalidInputError {
  const issue = error.issues[0];
  const key = issue === undefined || issue.path.length === 0 ? 'data' : `data.${issue.path.join('.')}`;
  return new InvalidInputError(
    `The data of a "${type}" event is invalid at ${key}: ${issue?.message ?? 'invalid'}.`,
    { key, type },
  );
}
