/**
 * The machines serving a workspace: each registers with its capacity, heartbeats with how many
 * sessions it runs, and is stale once it has missed `missedBeats` heartbeats in a row. Time comes
 * from an injected clock (stored as given), so staleness is decided on that clock, not the
 * database's.
 */
import type pg from 'pg';
import { InvalidInputError } from '../shared/errors.js';
import { WorkerNameError, WorkerNotRegisteredError } from './errors.js';

export type Clock = () => Date;

export interface WorkerRow {
  name: string;
  capacity: number;
  running: number;
  startedAt: string;
  heartbeatAt: string;
  version: string;
  stale: boolean;
}

export interface WorkerTiming {
  /** How often a worker heartbeats; default 5 s. */
  heartbeatMs: number;
  /** Heartbeats missed in a row before a worker counts as gone; default 3. */
  missedBeats: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Checks a machine name: it becomes part of a queue name, so it is kept plain. */
export function checkWorkerName(value: unknown, key = 'name'): string {
  if (typeof value !== 'string' || !NAME.test(value)) throw new WorkerNameError(key, value);
  return value;
}

export class WorkerRegistry {
  readonly timing: WorkerTiming;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock = () => new Date(),
    timing: Partial<WorkerTiming> = {},
  ) {
    this.timing = { heartbeatMs: 5_000, missedBeats: 3, ...timing };
  }

  /** Registers (or re-registers after a restart) a machine with `capacity` session slots. */
  async register(input: { name: unknown; capacity: unknown; version: unknown }): Promise<WorkerRow> {
    const name = checkWorkerName(input.name);
    const capacity = input.capacity;
    if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 0) {
      throw new InvalidInputError(`capacity must be a whole number of session slots, 0 or more; got ${JSON.stringify(capacity)}.`, { key: 'capacity', value: capacity });
    }
    if (typeof input.version !== 'string' || input.version === '') throw new InvalidInputError('version must name the Baton version the worker runs.', { key: 'version' });
    const now = this.clock();
    const { rows } = await this.pool.query<Row>(
      `INSERT INTO workers (name, capacity, running, started_at, heartbeat_at, version) VALUES ($1, $2, 0, $3, $3, $4)
       ON CONFLICT (name) DO UPDATE SET capacity = $2, running = 0, started_at = $3, heartbeat_at = $3, version = $4
       RETURNING *`,
      [name, capacity, now, input.version],
    );
    return this.view(rows[0]!);
  }

  /** Records that `name` is alive and runs `running` sessions. */
  async heartbeat(name: string, running: number): Promise<void> {
    const { rowCount } = await this.pool.query('UPDATE workers SET heartbeat_at = $2, running = $3 WHERE name = $1', [checkWorkerName(name), this.clock(), running]);
    if (rowCount === 0) throw new WorkerNotRegisteredError(name);
  }

  async list(): Promise<WorkerRow[]> {
    const { rows } = await this.pool.query<Row>('SELECT * FROM workers ORDER BY name');
    return rows.map((row) => this.view(row));
  }

  async deregister(name: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM workers WHERE name = $1', [checkWorkerName(name)]);
    return rowCount === 1;
  }

  /** A worker whose last heartbeat is before this is stale. */
  staleBefore(): Date {
    return new Date(this.clock().getTime() - this.timing.heartbeatMs * this.timing.missedBeats);
  }

  private view(row: Row): WorkerRow {
    return {
      name: row.name,
      capacity: row.capacity,
      running: row.running,
      startedAt: row.started_at.toISOString(),
      heartbeatAt: row.heartbeat_at.toISOString(),
      version: row.version,
      stale: row.heartbeat_at.getTime() < this.staleBefore().getTime(),
    };
  }
}

interface Row {
  name: string;
  capacity: number;
  running: number;
  started_at: Date;
  heartbeat_at: Date;
  version: string;
}
