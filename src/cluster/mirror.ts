/**
 * Every machine sees every session (decision 126). Each machine stays the store of record of the
 * sessions it runs (its SQLite); the shared workspace log carries what the others need: the
 * latest view of each session (`cluster.session`, coalesced), its normalized events
 * (`cluster.event`, for peek and attach from elsewhere, cut to a size cap) and a tombstone when
 * it is removed (`cluster.session_removed`). The following half keeps the view of every session
 * of the other machines, rebuilt at start by one query for the latest row of each session, then
 * kept live by following the log. A row it cannot read (hand-written, another version) is
 * skipped with a warning, never fatal.
 */
import type { z } from 'zod';
import { InternalError, InvalidInputError } from '../shared/errors.js';
import { createLogger, type Logger } from '../shared/log.js';
import type { Follow, LoggedEvent, PgWorkspaceLog } from './bus.js';
import {
  ClusterEventPublished,
  ClusterSessionPublished,
  ClusterSessionRemoved,
  type MirroredEvent,
  type SessionView,
} from './events.js';
import { SessionPublisher, type RetryTiming } from './mirror-publish.js';
import { checkWorkerName } from './workers.js';

export const MIRROR_EVENTS_PAGE_MAX = 1_000;

export interface RemoteSession {
  machine: string;
  view: SessionView;
  /** When its machine last published it (the log's timestamp). */
  updatedAt: string;
}

export interface RemoteEvent {
  machine: string;
  event: MirroredEvent;
  /** Present when the event was cut to the size cap: its size before. */
  cut?: { originalBytes: number };
}

export type MirrorChange =
  | { kind: 'session'; machine: string; view: SessionView }
  | { kind: 'removed'; machine: string; sessionId: string }
  | ({ kind: 'event'; sessionId: string } & RemoteEvent);

export interface SessionMirrorOptions {
  log: PgWorkspaceLog;
  machine: string;
  /** This machine's sessions as they are now: republished at start, the log's others of ours tombstoned. */
  localSessions?: () => readonly SessionView[] | Promise<readonly SessionView[]>;
  /** How `start` rebuilds the view: one query for each session's latest row (default), or a replay of the log. */
  rebuild?: 'latest' | 'replay';
  /** Events larger than this (serialized) are cut; default 64 KiB. */
  eventCapBytes?: number;
  /** A view or tombstone whose append failed is appended again after this; default 0.5 s doubling to 30 s. */
  retry?: RetryTiming;
  logger?: Pick<Logger, 'warn'>;
}

export class SessionMirror {
  readonly machine: string;
  private readonly log: PgWorkspaceLog;
  private readonly publisher: SessionPublisher;
  private readonly logger: Pick<Logger, 'warn'>;
  private readonly remote = new Map<string, RemoteSession>();
  /** Sessions the log last showed as this machine's. */
  private readonly ownInLog = new Set<string>();
  private readonly listeners = new Set<(change: MirrorChange) => void>();
  private follow: Follow | undefined;

  constructor(private readonly options: SessionMirrorOptions) {
    this.machine = checkWorkerName(options.machine, 'machine');
    this.log = options.log;
    this.logger = options.logger ?? createLogger('cluster.mirror');
    this.publisher = new SessionPublisher(
      options.log,
      this.machine,
      options.eventCapBytes,
      options.retry,
      this.logger,
    );
  }

  publish(view: unknown): Promise<void> {
    return this.publisher.publish(view);
  }

  publishEvent(sessionId: unknown, event: unknown): Promise<void> {
    return this.publisher.publishEvent(sessionId, event);
  }

  removed(sessionId: unknown): Promise<void> {
    return this.publisher.removed(sessionId);
  }

  /**
   * Builds the view of the other machines' sessions from the log after `afterSeq`, follows it
   * from there, and republishes this machine's sessions (tombstoning any the log still shows
   * here that it no longer runs). Resolves with the seq the view is current to.
   */
  async start(afterSeq = 0): Promise<number> {
    if (this.follow !== undefined) throw new InternalError('the session mirror is already started');
    const { head, rows } =
      (this.options.rebuild ?? 'latest') === 'latest'
        ? await this.latestRows(afterSeq)
        : await this.replayRows(afterSeq);
    // The rebuild is the starting state, not news: listeners hear what changes after it.
    for (const row of rows) {
      // A session whose latest row cannot be read keeps the latest one that can.
      for (let at: LoggedEvent | undefined = row; at !== undefined && !this.apply(at, false);)
        at = await this.rowBefore(at, afterSeq);
    }
    this.follow = await this.log.follow(head, (event) => {
      this.apply(event);
    });
    await this.reconcile();
    return head;
  }

  /** Every session of the other machines, by machine then name. */
  remoteSessions(): RemoteSession[] {
    return [...this.remote.values()].sort(
      (a, b) =>
        a.machine.localeCompare(b.machine) ||
        a.view.name.localeCompare(b.view.name) ||
        a.view.id.localeCompare(b.view.id),
    );
  }

  /** A session's mirrored events after its own seq `afterSeq`, oldest first, at most `limit`. */
  async events(sessionId: unknown, afterSeq: unknown = 0, limit: unknown = 200): Promise<RemoteEvent[]> {
    if (typeof sessionId !== 'string' || sessionId === '')
      throw new InvalidInputError(`sessionId must be a session id; got ${JSON.stringify(sessionId)}.`, {
        key: 'sessionId',
        value: sessionId,
      });
    if (!Number.isSafeInteger(afterSeq) || (afterSeq as number) < 0)
      throw new InvalidInputError(`afterSeq must be a whole number ≥ 0; got ${JSON.stringify(afterSeq)}.`, {
        key: 'afterSeq',
        value: afterSeq,
      });
    if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MIRROR_EVENTS_PAGE_MAX) {
      throw new InvalidInputError(
        `limit must be a whole number from 1 to ${MIRROR_EVENTS_PAGE_MAX}; got ${JSON.stringify(limit)}.`,
        { key: 'limit', value: limit },
      );
    }
    // One row per event seq (a republished event counts once: its newest row); the jsonb
    // comparison keeps a non-number eventSeq out instead of failing the query on a cast.
    const { rows } = await this.log.pool.query<{ seq: string; data: unknown }>(
      `SELECT DISTINCT ON (data->'eventSeq') seq, data FROM workspace_events
       WHERE type = 'cluster.event' AND data->>'sessionId' = $1 AND jsonb_typeof(data->'eventSeq') = 'number' AND data->'eventSeq' > to_jsonb($2::bigint)
       ORDER BY data->'eventSeq', seq DESC LIMIT $3`,
      [sessionId, afterSeq, limit],
    );
    const events: RemoteEvent[] = [];
    for (const row of rows) {
      const data = this.read(ClusterEventPublished.schema, {
        seq: Number(row.seq),
        type: ClusterEventPublished.type,
        data: row.data,
      });
      if (data !== undefined)
        events.push({
          machine: data.machine,
          event: data.event,
          ...(data.cut === undefined ? {} : { cut: data.cut }),
        });
    }
    return events;
  }

  /** Called for every change to the remote view and every remote event; returns the unsubscribe. */
  onChange(listener: (change: MirrorChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops following and retrying; resolves once the appends in flight are done. */
  async close(): Promise<void> {
    await this.follow?.close();
    this.follow = undefined;
    await this.publisher.close();
  }

  /**
   * The head of the log and, up to it, the latest session row (view or tombstone) of each
   * session, read in one snapshot: appends commit in seq order (bus.ts), so following from the
   * head misses nothing.
   */
  private async latestRows(afterSeq: number): Promise<{ head: number; rows: LoggedEvent[] }> {
    const client = await this.log.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const head = await client.query<{ head: string }>(
        'SELECT coalesce(max(seq), 0) AS head FROM workspace_events',
      );
      const { rows } = await client.query<{ seq: string; at: Date; type: string; data: unknown }>(
        `SELECT DISTINCT ON (data->>'sessionId') seq, at, type, data FROM workspace_events
         WHERE type IN ('cluster.session', 'cluster.session_removed') AND seq > $1
         ORDER BY data->>'sessionId', seq DESC`,
        [afterSeq],
      );
      await client.query('COMMIT');
      const events = rows.map((row) => ({
        seq: Number(row.seq),
        ts: row.at.toISOString(),
        type: row.type,
        data: row.data,
      }));
      return {
        head: Math.max(afterSeq, Number(head.rows[0]!.head)),
        rows: events.sort((a, b) => a.seq - b.seq),
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** The session row before `row` of the same session (only asked when `row` could not be read). */
  private async rowBefore(row: LoggedEvent, afterSeq: number): Promise<LoggedEvent | undefined> {
    const sessionId = (row.data as { sessionId?: unknown } | null)?.sessionId;
    if (typeof sessionId !== 'string') return undefined;
    const { rows } = await this.log.pool.query<{ seq: string; at: Date; type: string; data: unknown }>(
      `SELECT seq, at, type, data FROM workspace_events
       WHERE type IN ('cluster.session', 'cluster.session_removed') AND data->>'sessionId' = $1 AND seq > $2 AND seq < $3
       ORDER BY seq DESC LIMIT 1`,
      [sessionId, afterSeq, row.seq],
    );
    const found = rows[0];
    return found === undefined
      ? undefined
      : { seq: Number(found.seq), ts: found.at.toISOString(), type: found.type, data: found.data };
  }

  /** Every row of the log after `afterSeq` up to its head: the slow way, kept to measure against. */
  private async replayRows(afterSeq: number): Promise<{ head: number; rows: LoggedEvent[] }> {
    const { rows: top } = await this.log.pool.query<{ head: string }>(
      'SELECT coalesce(max(seq), 0) AS head FROM workspace_events',
    );
    const head = Math.max(afterSeq, Number(top[0]!.head));
    const rows: LoggedEvent[] = [];
    for (let last = afterSeq; last < head;) {
      const page = (await this.log.list(last, MIRROR_EVENTS_PAGE_MAX)).filter((event) => event.seq <= head);
      if (page.length === 0) break;
      rows.push(...page);
      last = page.at(-1)!.seq;
    }
    return { head, rows };
  }

  /** Applies one log row; false when it is a cluster row that cannot be read. */
  private apply(event: LoggedEvent, tell = true): boolean {
    if (event.type === ClusterSessionPublished.type) {
      const data = this.read(ClusterSessionPublished.schema, event);
      if (data === undefined) return false;
      if (data.machine === this.machine) {
        // Ours now (perhaps respawned here): whatever another machine said of it is history.
        this.ownInLog.add(data.sessionId);
        if (this.remote.delete(data.sessionId))
          this.emit({ kind: 'removed', machine: data.machine, sessionId: data.sessionId }, tell);
        return true;
      }
      this.ownInLog.delete(data.sessionId);
      this.remote.set(data.sessionId, { machine: data.machine, view: data.view, updatedAt: event.ts });
      this.emit({ kind: 'session', machine: data.machine, view: data.view }, tell);
    } else if (event.type === ClusterSessionRemoved.type) {
      const data = this.read(ClusterSessionRemoved.schema, event);
      if (data === undefined) return false;
      if (data.machine === this.machine) this.ownInLog.delete(data.sessionId);
      // Only its holder's tombstone counts: a machine it moved away from may clean up late.
      else if (this.remote.get(data.sessionId)?.machine === data.machine) {
        this.remote.delete(data.sessionId);
        this.emit({ kind: 'removed', machine: data.machine, sessionId: data.sessionId }, tell);
      }
    } else if (event.type === ClusterEventPublished.type) {
      if (!tell || this.listeners.size === 0) return true;
      const data = this.read(ClusterEventPublished.schema, event);
      if (data === undefined) return false;
      if (data.machine === this.machine) return true;
      this.emit(
        {
          kind: 'event',
          sessionId: data.sessionId,
          machine: data.machine,
          event: data.event,
          ...(data.cut === undefined ? {} : { cut: data.cut }),
        },
        tell,
      );
    }
    return true;
  }

  /** A row's data checked against its event's schema; a bad row is logged and skipped. */
  private read<T extends z.ZodType>(
    schema: T,
    event: Pick<LoggedEvent, 'seq' | 'type' | 'data'>,
  ): z.infer<T> | undefined {
    const parsed = schema.safeParse(event.data);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    this.logger.warn('skipped a workspace log row the session mirror cannot read', {
      seq: event.seq,
      type: event.type,
      key: ['data', ...(issue?.path ?? [])].join('.'),
      problem: issue?.message ?? 'invalid',
    });
    return undefined;
  }

  private emit(change: MirrorChange, tell = true): void {
    if (!tell) return;
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.warn('a session mirror listener failed', {
          error: error instanceof Error ? error.message : String(error),
          kind: change.kind,
        });
      }
    }
  }

  private async reconcile(): Promise<void> {
    if (this.options.localSessions === undefined) return;
    const local = await this.options.localSessions();
    const ids = new Set(local.map((view) => view.id));
    await Promise.all([
      ...[...this.ownInLog].filter((id) => !ids.has(id)).map((id) => this.removed(id)),
      ...local.map((view) => this.publish(view)),
    ]);
  }
}
