/**
 * Placement: which machine runs a dispatched session. A dispatch becomes a pg-boss job (one per
 * session: the queues are `stately`, keyed by session id) on `baton.dispatch`, or on
 * `baton.dispatch.<machine>` when it names a machine. A worker with free slots fetches as many
 * jobs as it has slots, records the placement and completes the job at once: pg-boss 10 has no
 * job heartbeat and caps expiry, so a job covers placement only; a session's life after that is
 * watched through worker heartbeats (`reap`).
 */
import PgBoss from 'pg-boss';
import type pg from 'pg';
import { InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { parseStoreUrl } from './connect.js';
import type { Listener } from './listener.js';
import { checkWorkerName, staleSql, type WorkerRegistry } from './workers.js';

export const DISPATCH_QUEUE = 'baton.dispatch';
/** Dispatchers NOTIFY here (payload: the queue) so claimers wake at once instead of at their next poll. */
export const DISPATCH_CHANNEL = 'baton_dispatch';
const log = createLogger('cluster.placement');

/** Where a dispatch may run: any machine with a free slot, or one machine by name. */
export type Target = string;
export function queueFor(on: Target): string {
  return on === 'any' ? DISPATCH_QUEUE : `${DISPATCH_QUEUE}.${on}`;
}

export interface Dispatched {
  sessionId: string;
  queue: string;
  /** False when the session is already queued or placed: nothing new was queued. */
  queued: boolean;
}

export interface Reaped {
  sessionId: string;
  worker: string;
  reason: string;
  /** Where it was dispatched to (`any` or a machine), for the respawn. */
  on: Target;
}

export class Placement {
  private readonly queues = new Set<string>();

  private constructor(
    private readonly boss: PgBoss,
    private readonly pool: pg.Pool,
  ) {}

  /** Starts pg-boss on the store (creating its schema the first time) with the dispatch queue. */
  static async start(options: { url: string; pool: pg.Pool }): Promise<Placement> {
    const { url } = parseStoreUrl(options.url);
    const boss = new PgBoss({
      connectionString: url,
      max: 3,
      application_name: 'baton-placement',
      schedule: false,
      supervise: false,
    });
    boss.on('error', (error: Error) => log.error('pg-boss', { error: error.message }));
    await boss.start();
    const placement = new Placement(boss, options.pool);
    await placement.ensureQueue(DISPATCH_QUEUE);
    return placement;
  }

  /** Queues a session for a machine; a session already queued or placed is left as it is. */
  async dispatch(input: { sessionId: unknown; on?: unknown }): Promise<Dispatched> {
    const sessionId = input.sessionId;
    if (typeof sessionId !== 'string' || sessionId.trim() === '')
      throw new InvalidInputError('sessionId must name the session to place.', {
        key: 'sessionId',
        value: sessionId,
      });
    const on: Target = input.on === undefined || input.on === 'any' ? 'any' : checkWorkerName(input.on, 'on');
    const queue = queueFor(on);
    await this.ensureQueue(queue);
    // The placement row, the job and the wake-up commit together: a failure anywhere leaves no
    // row queued without a job (which no claimer would ever take), and a retry starts clean.
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rowCount } = await client.query(
        `INSERT INTO placements (session_id, worker, incarnation, state, reason, target, updated_at) VALUES ($1, NULL, NULL, 'queued', NULL, $2, now())
         ON CONFLICT (session_id) DO UPDATE SET worker = NULL, incarnation = NULL, state = 'queued', reason = NULL, target = $2, updated_at = now()
         WHERE placements.state IN ('failed', 'finished')`,
        [sessionId, on],
      );
      if (rowCount === 0) {
        await client.query('ROLLBACK');
        return { sessionId, queue, queued: false };
      }
      const db = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
      await this.boss.send(queue, { sessionId }, { singletonKey: sessionId, db });
      await client.query('SELECT pg_notify($1, $2)', [DISPATCH_CHANNEL, queue]);
      await client.query('COMMIT');
      return { sessionId, queue, queued: true };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** A worker's side: claims jobs while it has free slots. */
  claimer(options: ClaimerOptions): Claimer {
    return new Claimer(this, options);
  }

  /**
   * Fails every session placed on a stale, vanished or restarted worker (a placement held by an
   * earlier incarnation), with the reason, and returns them for respawn. Staleness is judged on
   * the database's clock. One UPDATE…RETURNING: two reapers racing never both report a session.
   * `staleOnly` (the supervisors' timed reaper, decision 129) leaves a deregistered or restarted
   * worker's placements alone: its sessions' hosts outlive its supervisor, which adopts them.
   */
  async reap(registry: WorkerRegistry, options: { staleOnly?: boolean } = {}): Promise<Reaped[]> {
    const { rows } = await this.pool.query<{
      session_id: string;
      worker: string;
      reason: string;
      target: string;
    }>(
      `UPDATE placements p SET state = 'failed', updated_at = now(),
         reason = 'worker ' || p.worker || CASE
           WHEN w.name IS NULL THEN ' stopped heartbeating (deregistered)'
           WHEN w.incarnation <> p.incarnation THEN ' restarted (incarnation ' || p.incarnation || ' is gone)'
           ELSE ' stopped heartbeating (' || $2 || ' missed heartbeats, last at '
             || to_char(w.heartbeat_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ')' END
       FROM placements q LEFT JOIN workers w ON w.name = q.worker
       WHERE p.session_id = q.session_id AND p.state = 'placed'
         AND ((NOT $3 AND (w.name IS NULL OR w.incarnation IS DISTINCT FROM p.incarnation)) OR ${staleSql('w.heartbeat_at', '$1')})
       RETURNING p.session_id, p.worker, p.reason, p.target`,
      [registry.staleAfterMs, String(registry.timing.missedBeats), options.staleOnly === true],
    );
    return rows.map((row) => ({
      sessionId: row.session_id,
      worker: row.worker,
      reason: row.reason,
      on: row.target,
    }));
  }

  async placementOf(
    sessionId: string,
  ): Promise<{ worker: string | null; state: string; reason: string | null } | undefined> {
    const { rows } = await this.pool.query<{ worker: string | null; state: string; reason: string | null }>(
      'SELECT worker, state, reason FROM placements WHERE session_id = $1',
      [sessionId],
    );
    return rows[0];
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: false, wait: true });
  }

  /** @internal Fetches up to `slots` jobs from `queue` and records them as placed on this incarnation of `worker`. */
  async claimFrom(
    queue: string,
    worker: string,
    incarnation: number,
    slots: number,
  ): Promise<{ fetched: number; placed: string[] }> {
    await this.ensureQueue(queue);
    const jobs = await this.boss.fetch<{ sessionId: string }>(queue, { batchSize: slots });
    if (jobs.length === 0) return { fetched: 0, placed: [] };
    const { rows } = await this.pool.query<{ session_id: string }>(
      `UPDATE placements SET state = 'placed', worker = $1, incarnation = $2, updated_at = now() WHERE session_id = ANY($3) AND state = 'queued' RETURNING session_id`,
      [worker, incarnation, jobs.map((job) => job.data.sessionId)],
    );
    await this.boss.complete(
      queue,
      jobs.map((job) => job.id),
    );
    const placed = new Set(rows.map((row) => row.session_id));
    // Job order (oldest first), not the UPDATE's.
    return {
      fetched: jobs.length,
      placed: jobs.map((job) => job.data.sessionId).filter((id) => placed.has(id)),
    };
  }

  /**
   * Takes placements this worker held as an earlier incarnation back for the current one: a
   * supervisor that restarted while its sessions' hosts kept running still runs them. Only those
   * still `placed` on this worker (not reaped meanwhile); returns the ones it took.
   */
  async adopt(sessionIds: string[], worker: string, incarnation: number): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    const { rows } = await this.pool.query<{ session_id: string }>(
      `UPDATE placements SET incarnation = $2, updated_at = now() WHERE session_id = ANY($3) AND worker = $1 AND state = 'placed' RETURNING session_id`,
      [worker, incarnation, sessionIds],
    );
    return rows.map((row) => row.session_id);
  }

  /** @internal Marks a session's placement finished (its slot is free again). */
  async finish(sessionId: string, worker: string, incarnation: number): Promise<void> {
    await this.pool.query(
      `UPDATE placements SET state = 'finished', updated_at = now() WHERE session_id = $1 AND worker = $2 AND incarnation = $3 AND state = 'placed'`,
      [sessionId, worker, incarnation],
    );
  }

  /**
   * Creates a queue the first time it is needed. pg-boss 10 attaches a partition per queue, and
   * that DDL can deadlock with another machine's fetch on the job table: PostgreSQL then aborts
   * one side, and the create is simply tried again.
   */
  private async ensureQueue(queue: string): Promise<void> {
    if (this.queues.has(queue)) return;
    for (let attempt = 1; (await this.boss.getQueue(queue)) === null; attempt++) {
      try {
        await this.boss.createQueue(queue, { name: queue, policy: 'stately' });
      } catch (error) {
        const deadlock = (error as { code?: unknown } | null)?.code === '40P01';
        // Or another machine created it between our look and our create: the loop looks again.
        if (deadlock && attempt < 5) continue;
        if ((await this.boss.getQueue(queue)) === null) throw error;
      }
    }
    this.queues.add(queue);
  }
}

export interface ClaimerOptions {
  worker: string;
  /**
   * The incarnation `WorkerRegistry.register` returned: placements are held by it. A function
   * when the worker may register again (a supervisor the store forgot), read at each claim.
   */
  incarnation: number | (() => number);
  capacity: number;
  /**
   * Free slots now, when something else counts them (a supervisor: its session manager's free
   * slots, whoever dispatched the sessions); default: `capacity` less the sessions placed here.
   */
  free?: () => number;
  /** The process's LISTEN connection; it must listen on DISPATCH_CHANNEL. */
  listener: Listener;
  /** Polls this often as well, in case a notification was lost; default 5 s. */
  pollMs?: number;
  /** Called once per session placed here, in claim order. */
  onPlaced: (sessionId: string) => void | Promise<void>;
}

/**
 * Claims jobs for one worker: its own queue first, then the shared one, as many as it has free
 * slots. Woken by a dispatcher's NOTIFY, by the listener reconnecting (notifications may have been
 * missed) and by a slow poll. pg-boss's own `work()` loop takes a fixed batch size, so the claimer
 * calls `fetch` itself with the slots free at that moment.
 */
export class Claimer {
  readonly running = new Set<string>();
  private readonly own: string;
  private claiming: Promise<number> | undefined;
  private again = false;
  private closed = false;
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly placement: Placement,
    private readonly options: ClaimerOptions,
  ) {
    this.own = queueFor(checkWorkerName(options.worker, 'worker'));
    options.listener.on('notification', this.onNotification);
    options.listener.on('connected', this.wake);
    this.poll = setInterval(this.wake, options.pollMs ?? 5_000);
    this.wake();
  }

  get free(): number {
    return Math.max(
      0,
      this.options.free === undefined ? this.options.capacity - this.running.size : this.options.free(),
    );
  }

  /** Claims now (joining a claim in progress); resolves with how many sessions it placed. */
  claim(): Promise<number> {
    if (this.claiming !== undefined) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = this.claimWhileFree().finally(() => {
      this.claiming = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        this.wake();
      }
    });
    return this.claiming;
  }

  /** A session placed here has ended: its slot is free, so look for more work. */
  async release(sessionId: string): Promise<void> {
    if (!this.running.delete(sessionId)) return;
    await this.placement.finish(sessionId, this.options.worker, this.incarnation());
    this.wake();
  }

  close(): Promise<unknown> {
    this.closed = true;
    clearInterval(this.poll);
    this.options.listener.off('notification', this.onNotification);
    this.options.listener.off('connected', this.wake);
    return this.claiming ?? Promise.resolve();
  }

  private incarnation(): number {
    const { incarnation } = this.options;
    return typeof incarnation === 'number' ? incarnation : incarnation();
  }

  private readonly wake = (): void => {
    if (this.closed || this.free === 0) return;
    this.claim().catch((error: unknown) =>
      log.warn('claiming dispatch jobs failed; the next wake-up retries', {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  };

  private readonly onNotification = (channel: string, queue: string): void => {
    if (channel === DISPATCH_CHANNEL && (queue === DISPATCH_QUEUE || queue === this.own)) this.wake();
  };

  private async claimWhileFree(): Promise<number> {
    let placed = 0;
    for (const queue of [this.own, DISPATCH_QUEUE]) {
      while (!this.closed && this.free > 0) {
        const { fetched, placed: sessions } = await this.placement.claimFrom(
          queue,
          this.options.worker,
          this.incarnation(),
          this.free,
        );
        if (fetched === 0) break;
        for (const sessionId of sessions) {
          this.running.add(sessionId);
          placed++;
          await this.options.onPlaced(sessionId);
        }
      }
    }
    return placed;
  }
}
