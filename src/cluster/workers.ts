/**
 * The machines serving a workspace: each registers with its capacity, heartbeats with the sessions
 * it runs, and is stale once it has missed `missedBeats` heartbeats in a row. Every time is the
 * database's `now()`, both when a heartbeat is written and when staleness is judged, so machines
 * whose clocks disagree never reap one another by mistake.
 *
 * Each registration is a new incarnation: placements record the incarnation that claimed them, so
 * a worker that restarts (or was reaped and comes back) never counts as still holding what an
 * earlier incarnation ran. A heartbeat answers with the sessions the worker no longer holds (its
 * fence): it must stop running them, since a respawn may already run them elsewhere.
 */
import type pg from 'pg';
import { InvalidInputError } from '../shared/errors.js';
import { checkWorkerName } from '../shared/cluster-settings.js';
import { WorkerNotRegisteredError } from './errors.js';

export { checkWorkerName } from '../shared/cluster-settings.js';

export interface WorkerRow {
  name: string;
  /** Bumped by every registration; a claimer and its heartbeats carry it. */
  incarnation: number;
  capacity: number;
  running: number;
  startedAt: string;
  heartbeatAt: string;
  version: string;
  /** Seconds since the last heartbeat, on the database's clock. */
  ageSeconds: number;
  stale: boolean;
}

export interface WorkerTiming {
  /** How often a worker heartbeats; default 5 s. */
  heartbeatMs: number;
  /** Heartbeats missed in a row before a worker counts as gone; default 3. */
  missedBeats: number;
}

export interface Heartbeat {
  /** Sessions the worker said it runs that are no longer placed on this incarnation: stop them. */
  fenced: string[];
}

/** SQL for "this worker row is stale", judged on the database's clock; `$n` is the window in ms. */
export function staleSql(column: string, windowParam: string): string {
  return `${column} < now() - make_interval(secs => ${windowParam}::double precision / 1000)`;
}

/** Seconds since a worker's last heartbeat, judged on the database's clock like staleness. */
const AGE_SQL = 'extract(epoch from now() - heartbeat_at)::double precision AS age_seconds';

export class WorkerRegistry {
  readonly timing: WorkerTiming;

  constructor(
    private readonly pool: pg.Pool,
    timing: Partial<WorkerTiming> = {},
  ) {
    this.timing = { heartbeatMs: 5_000, missedBeats: 3, ...timing };
  }

  /** How long without a heartbeat before a worker is stale, in ms. */
  get staleAfterMs(): number {
    return this.timing.heartbeatMs * this.timing.missedBeats;
  }

  /** Registers a machine with `capacity` session slots; registering again (a restart) is a new incarnation. */
  async register(input: { name: unknown; capacity: unknown; version: unknown }): Promise<WorkerRow> {
    const name = checkWorkerName(input.name);
    const capacity = input.capacity;
    if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 0) {
      throw new InvalidInputError(
        `capacity must be a whole number of session slots, 0 or more; got ${JSON.stringify(capacity)}.`,
        { key: 'capacity', value: capacity },
      );
    }
    if (typeof input.version !== 'string' || input.version === '')
      throw new InvalidInputError('version must name the Baton version the worker runs.', { key: 'version' });
    const { rows } = await this.pool.query<Row>(
      `INSERT INTO workers (name, incarnation, capacity, running, started_at, heartbeat_at, version) VALUES ($1, 1, $2, 0, now(), now(), $3)
       ON CONFLICT (name) DO UPDATE SET incarnation = workers.incarnation + 1, capacity = $2, running = 0, started_at = now(), heartbeat_at = now(), version = $3
       RETURNING *, ${AGE_SQL}, ${staleSql('heartbeat_at', '$4')} AS stale`,
      [name, capacity, input.version, this.staleAfterMs],
    );
    return view(rows[0]!);
  }

  /**
   * Records that this incarnation of `name` is alive and runs `sessions`; returns those of them it
   * no longer holds (reaped, or placed elsewhere). Throws WorkerNotRegisteredError when the worker
   * was deregistered or registered again since (then it holds nothing and must register anew).
   */
  async heartbeat(input: {
    name: string;
    incarnation: number;
    sessions: readonly string[];
    running?: number;
  }): Promise<Heartbeat> {
    const name = checkWorkerName(input.name);
    const sessions = [...new Set(input.sessions)];
    // Sessions started on the machine itself (not placed through the store) load it too.
    const running = input.running ?? sessions.length;
    if (!Number.isInteger(running) || running < sessions.length) {
      throw new InvalidInputError(
        `running must be a whole number of sessions, at least the ${sessions.length} placed ones; got ${JSON.stringify(running)}.`,
        { key: 'running', value: running },
      );
    }
    const { rows } = await this.pool.query<{ beat: string; fenced: string[] }>(
      `WITH beat AS (UPDATE workers SET heartbeat_at = now(), running = $3 WHERE name = $1 AND incarnation = $2 RETURNING 1)
       SELECT (SELECT count(*) FROM beat) AS beat,
              ARRAY(SELECT s.id FROM unnest($4::text[]) WITH ORDINALITY AS s(id, n)
                     WHERE NOT EXISTS (SELECT 1 FROM placements p WHERE p.session_id = s.id AND p.worker = $1 AND p.incarnation = $2 AND p.state = 'placed')
                     ORDER BY s.n) AS fenced`,
      [name, input.incarnation, running, sessions],
    );
    if (Number(rows[0]!.beat) === 0) throw new WorkerNotRegisteredError(name, input.incarnation);
    return { fenced: rows[0]!.fenced };
  }

  async list(): Promise<WorkerRow[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT *, ${AGE_SQL}, ${staleSql('heartbeat_at', '$1')} AS stale FROM workers ORDER BY name`,
      [this.staleAfterMs],
    );
    return rows.map(view);
  }

  /** Removes the worker; with `incarnation`, only that one (a newer registration of the name stays). */
  async deregister(name: string, incarnation?: number): Promise<boolean> {
    const { rowCount } =
      incarnation === undefined
        ? await this.pool.query('DELETE FROM workers WHERE name = $1', [checkWorkerName(name)])
        : await this.pool.query('DELETE FROM workers WHERE name = $1 AND incarnation = $2', [
            checkWorkerName(name),
            incarnation,
          ]);
    return rowCount === 1;
  }
}

function view(row: Row): WorkerRow {
  return {
    name: row.name,
    incarnation: Number(row.incarnation),
    capacity: row.capacity,
    running: row.running,
    startedAt: row.started_at.toISOString(),
    heartbeatAt: row.heartbeat_at.toISOString(),
    version: row.version,
    ageSeconds: Math.max(0, Number(row.age_seconds)),
    stale: row.stale,
  };
}

interface Row {
  name: string;
  incarnation: string;
  capacity: number;
  running: number;
  started_at: Date;
  heartbeat_at: Date;
  version: string;
  age_seconds: number | string;
  stale: boolean;
}
