/**
 * The tasks of shared repositories on the shared PostgreSQL (decision 147): the `TaskLedger` the
 * `SharedTasks` (src/cluster/peers/tasks.ts) writes through. Every write takes the tasks' advisory lock for its
 * transaction and stamps the rows it changes with the next `task_versions` value, so versions
 * are committed in order and a machine that read up to version N has missed nothing before it.
 * A removed task stays as a tombstone, so the others learn of it the same way. Each write
 * NOTIFYs `baton_tasks`; a LISTEN connection that comes back is reported as a change too.
 */
import type pg from 'pg';
import { BatonError } from '../shared/errors.js';
import type { TaskFields } from '../store/tasks.js';
import {
  dependencyCycle,
  DependencyCycleError,
  type LedgerNewTask,
  type LedgerTask,
  TaskAwaitedError,
  type TaskBody,
  type TaskLedger,
} from '../tasks/index.js';
import { isConnectionLoss, unreachable } from './connect.js';
import type { Listener } from './listener.js';
import { LOCKS } from './schema.js';
import { inTransaction } from './transaction.js';

export const TASK_CHANNEL = 'baton_tasks';

const FIELDS = [
  'title',
  'description',
  'scope_json',
  'tracker',
  'board_column',
  'column_set_by',
  'rank',
  'review',
  'merged_commit',
  'created_at',
  'updated_at',
] as const;

/** A row of cluster_tasks as the driver gives it (bigints as strings), with its dependencies. */
interface StoredTask extends TaskBody {
  id: string;
  repo_key: string;
  removed: boolean;
  machine: string;
  version: string;
  after: string[] | null;
}

const SELECT = `SELECT t.*, (SELECT array_agg(d.after_id ORDER BY d.after_id) FROM cluster_task_deps d WHERE d.task_id = t.id) AS after FROM cluster_tasks t`;

export class PgTasks implements TaskLedger {
  constructor(
    private readonly pool: pg.Pool,
    private readonly listener: Listener,
    private readonly machine: string,
    /** The store as errors name it (host and database, never the password). */
    private readonly target = 'the shared store',
  ) {}

  onChange(listener: () => void): () => void {
    const onNotification = (channel: string): void => {
      if (channel === TASK_CHANNEL) listener();
    };
    this.listener.on('notification', onNotification);
    this.listener.on('connected', listener);
    return () => {
      this.listener.off('notification', onNotification);
      this.listener.off('connected', listener);
    };
  }

  async nextId(): Promise<number> {
    return this.guard(async () =>
      Number((await this.pool.query<{ id: string }>("SELECT nextval('task_ids') AS id")).rows[0]!.id),
    );
  }

  add(task: LedgerNewTask, after: readonly number[], now: string): Promise<LedgerTask[]> {
    return this.write(async (client, version) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO cluster_tasks (id, repo_key, title, description, scope_json, tracker, board_column, column_set_by, rank, review, created_at, updated_at, machine, version)
         VALUES (nextval('task_ids'), $1, $2, $3, $4, $5, $6, 'hand',
                 (SELECT COALESCE(MAX(rank), -1) + 1 FROM cluster_tasks WHERE repo_key = $1 AND board_column = $6 AND NOT removed), 'none', $7, $7, $8, $9)
         RETURNING id`,
        [
          task.repoKey,
          task.title,
          task.description,
          task.scope_json,
          task.tracker,
          task.board_column,
          now,
          this.machine,
          version,
        ],
      );
      const id = Number(rows[0]!.id);
      await setDeps(client, id, after);
      return [id];
    });
  }

  edit(
    id: number,
    fields: TaskFields,
    after: readonly number[] | undefined,
    now: string,
  ): Promise<LedgerTask[]> {
    return this.write(async (client, version) => {
      const keys = Object.keys(fields) as (keyof TaskFields)[];
      const values = keys.map((key) => fields[key]);
      const set = keys.map((key, index) => `${key} = $${index + 5}`);
      const { rowCount } = await client.query(
        `UPDATE cluster_tasks SET ${[...set, 'updated_at = $2', 'machine = $3', 'version = $4'].join(', ')} WHERE id = $1 AND NOT removed`,
        [id, now, this.machine, version, ...values],
      );
      if (rowCount === 0) return [];
      if (after !== undefined) {
        // Another machine may have made a task of `after` wait for this one since this machine checked.
        const { rows: edges } = await client.query<{ task_id: string; after_id: string }>(
          'SELECT d.task_id, d.after_id FROM cluster_task_deps d JOIN cluster_tasks t ON t.id = d.task_id WHERE t.repo_key = (SELECT repo_key FROM cluster_tasks WHERE id = $1) AND NOT t.removed',
          [id],
        );
        const cycle = dependencyCycle(
          id,
          after,
          edges.map((edge) => ({ task_id: Number(edge.task_id), after_id: Number(edge.after_id) })),
        );
        if (cycle !== undefined) throw new DependencyCycleError(cycle);
        await setDeps(client, id, after);
      }
      return [id];
    });
  }

  /** Puts the task at `position` in `column` of its repository, renumbering that column. */
  move(
    id: number,
    column: string,
    setBy: string,
    position: number | undefined,
    now: string,
    unlessChangedAfter?: number,
  ): Promise<LedgerTask[]> {
    return this.write(async (client, version) => {
      const task = (
        await client.query<{ repo_key: string; version: string }>(
          'SELECT repo_key, version FROM cluster_tasks WHERE id = $1 AND NOT removed',
          [id],
        )
      ).rows[0];
      if (task === undefined) return [];
      // A queued automatic move made before a later change (a move by hand elsewhere): that change stands.
      if (unlessChangedAfter !== undefined && Number(task.version) > unlessChangedAfter)
        return { unchanged: [id] };
      const { rows } = await client.query<{ id: string; rank: number }>(
        'SELECT id, rank FROM cluster_tasks WHERE repo_key = $1 AND board_column = $2 AND id <> $3 AND NOT removed ORDER BY rank, id',
        [task.repo_key, column, id],
      );
      const ids = rows.map((row) => Number(row.id));
      ids.splice(Math.min(position ?? ids.length, ids.length), 0, id);
      const renumbered: number[] = [];
      for (const [rank, other] of ids.entries()) {
        if (other === id || rows.find((row) => Number(row.id) === other)?.rank === rank) continue;
        await client.query('UPDATE cluster_tasks SET rank = $2, machine = $3, version = $4 WHERE id = $1', [
          other,
          rank,
          this.machine,
          version,
        ]);
        renumbered.push(other);
      }
      await client.query(
        'UPDATE cluster_tasks SET board_column = $2, column_set_by = $3, rank = $4, updated_at = $5, machine = $6, version = $7 WHERE id = $1',
        [id, column, setBy, ids.indexOf(id), now, this.machine, version],
      );
      return [id, ...renumbered];
    });
  }

  setMerged(id: number, commit: string, now: string): Promise<LedgerTask[]> {
    return this.write(async (client, version) => {
      const { rowCount } = await client.query(
        'UPDATE cluster_tasks SET merged_commit = $2, updated_at = $3, machine = $4, version = $5 WHERE id = $1 AND NOT removed',
        [id, commit, now, this.machine, version],
      );
      return rowCount === 0 ? [] : [id];
    });
  }

  remove(id: number, now: string): Promise<LedgerTask[]> {
    return this.write(async (client, version) => {
      const waiting = await client.query<{ id: string }>(
        'SELECT t.id FROM cluster_task_deps d JOIN cluster_tasks t ON t.id = d.task_id WHERE d.after_id = $1 AND NOT t.removed AND t.merged_commit IS NULL ORDER BY t.id',
        [id],
      );
      if (waiting.rows.length > 0)
        throw new TaskAwaitedError(
          id,
          waiting.rows.map((row) => Number(row.id)),
        );
      const { rowCount } = await client.query(
        'UPDATE cluster_tasks SET removed = true, updated_at = $2, machine = $3, version = $4 WHERE id = $1 AND NOT removed',
        [id, now, this.machine, version],
      );
      if (rowCount === 0) return [];
      // Landed tasks that waited for it wait for nothing now (each machine's SQLite drops those edges too).
      await client.query('DELETE FROM cluster_task_deps WHERE task_id = $1 OR after_id = $1', [id]);
      return [id];
    });
  }

  async changedSince(version: number): Promise<LedgerTask[]> {
    return this.guard(async () =>
      (
        await this.pool.query<StoredTask>(`${SELECT} WHERE t.version > $1 ORDER BY t.version, t.id`, [
          version,
        ])
      ).rows.map(ledgerTask),
    );
  }

  async ofRepository(repoKey: string): Promise<LedgerTask[]> {
    return this.guard(async () =>
      (
        await this.pool.query<StoredTask>(`${SELECT} WHERE t.repo_key = $1 AND NOT t.removed ORDER BY t.id`, [
          repoKey,
        ])
      ).rows.map(ledgerTask),
    );
  }

  /**
   * The sequence moved past this machine's numbers, and its tasks the store lacks stored under
   * them. A number the store holds for another task (another repository, or another machine's
   * task) is answered as taken; one this machine uploaded before is neither.
   */
  async join(
    tasks: readonly LedgerTask[],
    ownIds: readonly number[],
    maxLocalId: number,
  ): Promise<{ uploaded: number[]; taken: number[] }> {
    const uploaded: number[] = [];
    const taken: number[] = [];
    await this.guard(() =>
      inTransaction(this.pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.tasks]);
        await client.query(
          "SELECT setval('task_ids', $1::bigint) FROM task_ids WHERE $1::bigint > (CASE WHEN is_called THEN last_value ELSE 0 END)",
          [maxLocalId],
        );
        const version = await nextVersion(client);
        const held = async (id: number) =>
          (
            await client.query<{ repo_key: string; created_at: string }>(
              'SELECT repo_key, created_at FROM cluster_tasks WHERE id = $1',
              [id],
            )
          ).rows[0];
        for (const id of ownIds) if ((await held(id)) !== undefined) taken.push(id);
        for (const task of tasks) {
          const other = await held(task.id);
          if (other !== undefined) {
            // Only what never changes tells the same task: a title renamed meanwhile does not make it another.
            if (other.repo_key !== task.repoKey || other.created_at !== task.created_at) taken.push(task.id);
            continue;
          }
          await client.query(
            `INSERT INTO cluster_tasks (id, repo_key, ${FIELDS.join(', ')}, machine, version) VALUES ($1, $2, ${FIELDS.map((_, index) => `$${index + 3}`).join(', ')}, $${FIELDS.length + 3}, $${FIELDS.length + 4})`,
            [task.id, task.repoKey, ...FIELDS.map((key) => task[key]), this.machine, version],
          );
          uploaded.push(task.id);
        }
        // A number another task holds here is not the one this machine's task waits for.
        for (const task of tasks)
          if (uploaded.includes(task.id))
            await setDeps(
              client,
              task.id,
              task.after.filter((id) => !taken.includes(id)),
            );
        if (uploaded.length > 0) await client.query('SELECT pg_notify($1, $2)', [TASK_CHANNEL, this.machine]);
      }),
    );
    return { uploaded, taken };
  }

  /**
   * One write under the tasks' lock, its rows stamped with one new version; answers them as they
   * are now. `unchanged`: nothing written, those rows answered as they are.
   */
  private write(
    work: (client: pg.PoolClient, version: number) => Promise<number[] | { unchanged: number[] }>,
  ): Promise<LedgerTask[]> {
    return this.guard(() =>
      inTransaction(this.pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.tasks]);
        const version = await nextVersion(client);
        const done = await work(client, version);
        const ids = Array.isArray(done) ? done : done.unchanged;
        if (ids.length === 0) return [];
        if (Array.isArray(done)) await client.query('SELECT pg_notify($1, $2)', [TASK_CHANNEL, this.machine]);
        return (
          await client.query<StoredTask>(`${SELECT} WHERE t.id = ANY($1::bigint[]) ORDER BY t.id`, [ids])
        ).rows.map(ledgerTask);
      }),
    );
  }

  /** A store that cannot be reached is a 503 naming it, not an internal error. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      // A refusal of ours (a task others wait for) is no connection lost.
      if (error instanceof BatonError) throw error;
      throw isConnectionLoss(error) || refusedEntry(error) ? unreachable(this.target, error) : error;
    }
  }
}

/** The server is up but lets nobody in (the database closed to connections, too many of them): unreachable too. */
function refusedEntry(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === '53300' ||
    (code === '55000' &&
      typeof message === 'string' &&
      /not currently accepting connections|does not allow connections/.test(message))
  );
}

async function nextVersion(client: pg.PoolClient): Promise<number> {
  return Number((await client.query<{ v: string }>("SELECT nextval('task_versions') AS v")).rows[0]!.v);
}

async function setDeps(client: pg.PoolClient, id: number, after: readonly number[]): Promise<void> {
  await client.query('DELETE FROM cluster_task_deps WHERE task_id = $1', [id]);
  if (after.length > 0)
    await client.query(
      'INSERT INTO cluster_task_deps (task_id, after_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING',
      [id, [...after]],
    );
}

function ledgerTask(row: StoredTask): LedgerTask {
  return {
    id: Number(row.id),
    repoKey: row.repo_key,
    title: row.title,
    description: row.description,
    scope_json: row.scope_json,
    tracker: row.tracker,
    board_column: row.board_column,
    column_set_by: row.column_set_by,
    rank: row.rank,
    review: row.review,
    merged_commit: row.merged_commit,
    created_at: row.created_at,
    updated_at: row.updated_at,
    removed: row.removed,
    machine: row.machine,
    version: Number(row.version),
    after: (row.after ?? []).map(Number),
  };
}
