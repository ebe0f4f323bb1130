/**
 * Tasks shared by the machines of a workspace (decision 147). The store the machines
 * share (`TaskLedger`, PostgreSQL in src/cluster/tasks.ts) is the truth for the tasks of a
 * repository with a remote; each machine's SQLite `tasks` and `task_dependencies` stay the read
 * model every synchronous read uses. `SharedTasks` routes the writes of shared repositories to
 * the ledger, applies what the ledger holds to SQLite (this machine's writes at once, the others'
 * when the ledger says something changed), and queues the watch's automatic moves and landings
 * in SQLite (`task_outbox`) while the ledger cannot be reached, a restart included.
 */
import { BatonError } from '../../shared/errors.js';
import type { ProjectRow, SessionStore } from '../../store/sessions.js';
import type { QueuedTaskWrite, TaskRow, TaskStore } from '../../store/tasks.js';
import {
  SharedTasksNotJoinedError,
  TaskNotFoundError,
  type Applied,
  type LedgerTask,
  type TaskLedger,
  type TaskShare,
} from '../../tasks/index.js';
import { RetryTimer } from '../../shared/retry.js';

export interface SharedTasksOptions {
  ledger: TaskLedger;
  tasks: TaskStore;
  sessions: SessionStore;
  machine: string;
  /** A repository's identity across machines (its remote, `canonicalRemote`), undefined without one. */
  keyOf: (root: string) => Promise<string | undefined>;
  /** After another machine's change reached SQLite. */
  onApplied: (applied: Applied) => void;
  logger: { warn(message: string, data?: Record<string, unknown>): void };
  retry?: { firstMs: number; maxMs: number };
}

export class SharedTasks implements TaskShare {
  /** Project id → its repository's key (null: no remote, its tasks stay here). */
  private readonly keys = new Map<string, string | null>();
  /** Repository key → this machine's project of it. */
  private readonly projects = new Map<string, string>();
  /** Ids another machine's task took before this machine joined: its own task of that number stays here. */
  private readonly localOnly = new Set<number>();
  private seen = 0;
  /** Nothing is read before the join decided which numbers stay this machine's own. */
  private joined = false;
  private indexed = false;
  private joining: Promise<void> | undefined;
  /** The newest version of each task written here: a read that raced a newer write does not undo it. */
  private readonly versions = new Map<number, number>();
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private flushing: Promise<void> | undefined;
  private readonly retry: RetryTimer;
  private closed = false;
  private readonly unlisten: () => void;

  constructor(private readonly o: SharedTasksOptions) {
    this.retry = new RetryTimer(() => void this.flush(), o.retry);
    this.unlisten = o.ledger.onChange(() => {
      // A start the store failed is tried again on its next word (a reconnect).
      if (!this.joined && this.indexed)
        this.join().catch((error: unknown) =>
          o.logger.warn('could not join the shared tasks yet', { error: message(error) }),
        );
      void this.catchUp();
      void this.flush();
    });
  }

  /** Names this machine's projects, uploads its tasks of shared repositories, and reads the ledger. */
  async start(): Promise<void> {
    for (const project of this.o.sessions.projects()) await this.index(project);
    this.indexed = true;
    await this.join();
  }

  private join(): Promise<void> {
    this.joining ??= this.joinOnce().finally(() => (this.joining = undefined));
    return this.joining;
  }

  private async joinOnce(): Promise<void> {
    const mine: LedgerTask[] = [];
    const own: number[] = [];
    let maxLocalId = 0;
    for (const task of this.o.tasks.list()) {
      maxLocalId = Math.max(maxLocalId, task.id);
      const repoKey = this.keys.get(task.project_id);
      if (repoKey !== null && repoKey !== undefined)
        mine.push({
          ...task,
          repoKey,
          removed: false,
          machine: this.o.machine,
          version: 0,
          after: this.o.tasks.dependencies(task.id),
        });
      else own.push(task.id);
    }
    const { taken } = await this.o.ledger.join(mine, own, maxLocalId);
    for (const id of taken) {
      this.localOnly.add(id);
      this.o.logger.warn(
        `task ${id} stays on this machine only: another machine's task has its number in the shared store`,
        { task: id },
      );
    }
    this.joined = true;
    // What was queued before a restart goes first: reading from version 0 would undo it here meanwhile.
    await this.flush();
    await this.catchUp();
  }

  close(): void {
    this.closed = true;
    this.retry.cancel();
    this.unlisten();
  }

  /** The repository key of a task whose truth is the ledger; undefined for a task kept here. */
  sharedKey(task: Pick<TaskRow, 'id' | 'project_id'>): string | undefined {
    if (this.localOnly.has(task.id)) return undefined;
    return this.keys.get(task.project_id) ?? undefined;
  }

  /**
   * The key of a project this machine may be seeing for the first time: named, and its tasks
   * read from the ledger when it is the first project here of that repository.
   */
  async know(project: ProjectRow): Promise<string | undefined> {
    if (this.keys.has(project.id)) return this.keys.get(project.id) ?? undefined;
    const key = await this.index(project);
    if (key === undefined || this.projects.get(key) !== project.id) return key;
    try {
      this.apply(await this.o.ledger.ofRepository(key));
    } catch (error) {
      // Read again at the next look; this machine's reads go on meanwhile.
      this.keys.delete(project.id);
      this.projects.delete(key);
      this.o.logger.warn("could not read a repository's shared tasks yet", {
        project: project.name,
        error: message(error),
      });
    }
    return key;
  }

  /** Before the join moved the sequence past this machine's numbers, a number from it could be one of them. */
  nextId(): Promise<number> {
    if (!this.joined) return Promise.reject(new SharedTasksNotJoinedError());
    return this.o.ledger.nextId();
  }

  /**
   * A hand write of task `taskId` (none for an add): the ledger's transaction, then its rows in
   * SQLite. Throws, changing nothing here, when the ledger cannot be reached or was not joined
   * yet, and `TaskNotFoundError` when the ledger has no such live task.
   */
  async write(
    ledgerWrite: (ledger: TaskLedger) => Promise<LedgerTask[]>,
    taskId?: number,
  ): Promise<LedgerTask[]> {
    if (!this.joined) throw new SharedTasksNotJoinedError();
    const rows = await ledgerWrite(this.o.ledger);
    if (rows.length === 0)
      throw new TaskNotFoundError(taskId === undefined ? 'in the shared store' : String(taskId));
    this.apply(rows);
    return rows;
  }

  /**
   * An automatic write (already applied here): kept in SQLite with the ledger's version of the
   * task this machine has, sent in order once joined, retried while the ledger cannot be reached.
   */
  queue(write: DistributiveOmit<QueuedTaskWrite, 'baseVersion'>): Promise<void> {
    this.o.tasks.outbox.add({ ...write, baseVersion: this.versions.get(write.taskId) ?? 0 });
    return this.flush();
  }

  /** Reads what was written after the newest version seen and applies it; coalesced. */
  catchUp(): Promise<void> {
    if (!this.joined) return Promise.resolve();
    if (this.reading !== undefined) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        try {
          const rows = await this.o.ledger.changedSince(this.seen);
          this.apply(rows);
          for (const row of rows) this.seen = Math.max(this.seen, row.version);
        } catch (error) {
          if (!this.closed)
            this.o.logger.warn(
              "could not read the other machines' tasks; the next change or reconnect reads them",
              { error: message(error) },
            );
        }
      } while (this.readAgain && !this.closed);
    })().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Settled once the queued automatic writes are in (or wait for their retry). */
  settled(): Promise<void> {
    return this.flushing ?? Promise.resolve();
  }

  private async index(project: ProjectRow): Promise<string | undefined> {
    const key = await this.o.keyOf(project.root).catch(() => undefined);
    this.keys.set(project.id, key ?? null);
    // Two clones of one remote on this machine: the first known holds its tasks.
    if (key !== undefined && !this.projects.has(key)) this.projects.set(key, project.id);
    return key;
  }

  private flush(): Promise<void> {
    if (this.flushing !== undefined || this.closed || !this.joined) return this.flushing ?? Promise.resolve();
    this.flushing = (async () => {
      for (
        let next = this.o.tasks.outbox.first();
        next !== undefined && !this.closed;
        next = this.o.tasks.outbox.first()
      ) {
        const what =
          next.kind === 'move' ? `move task ${next.taskId} to ${next.column}` : `task ${next.taskId} landed`;
        try {
          const rows = await this.send(next);
          this.o.tasks.outbox.remove(next.seq);
          this.retry.succeeded();
          if (rows.length === 0)
            this.o.logger.warn('a task change was not shared: the shared store no longer has the task', {
              change: what,
            });
          this.apply(rows);
        } catch (error) {
          if (!(error instanceof BatonError && error.code === 'store_unreachable')) {
            this.o.tasks.outbox.remove(next.seq);
            this.o.logger.warn('the shared store refused a task change; dropped', {
              change: what,
              error: message(error),
            });
            continue;
          }
          this.o.logger.warn('could not share a task change; trying again', {
            change: what,
            queued: this.o.tasks.outbox.count(),
            error: message(error),
          });
          this.retry.failed();
          return;
        }
      }
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** A session's move stands only if nobody changed the task since (a move by hand elsewhere wins); a landing always does. */
  private send(write: QueuedTaskWrite): Promise<LedgerTask[]> {
    if (write.kind === 'merged') return this.o.ledger.setMerged(write.taskId, write.commit, write.at);
    const unlessChangedAfter = write.setBy === 'merge' ? undefined : write.baseVersion;
    return this.o.ledger.move(
      write.taskId,
      write.column,
      write.setBy,
      undefined,
      write.at,
      unlessChangedAfter,
    );
  }

  /**
   * Rows of the ledger into SQLite, tasks before dependencies; reports what another machine
   * changed. A row SQLite refuses (a constraint of this machine's) is skipped with a warning
   * rather than stopping every later row; so is a row whose number another repository's task
   * holds here (that task stays this machine's own).
   */
  private apply(rows: readonly LedgerTask[]): void {
    const applied: Applied = { changed: new Map(), removed: new Map(), merged: [] };
    const changed = new Set<number>();
    const written: LedgerTask[] = [];
    const each = (row: LedgerTask, work: () => void): void => {
      try {
        work();
      } catch (error) {
        this.o.logger.warn(`task ${row.id} from the shared store could not be written here; skipped`, {
          task: row.id,
          error: message(error),
        });
      }
    };
    this.o.tasks.transact(() => {
      for (const row of rows) {
        const projectId = this.projects.get(row.repoKey);
        if (
          projectId === undefined ||
          this.localOnly.has(row.id) ||
          (this.versions.get(row.id) ?? 0) > row.version
        )
          continue;
        const before = this.o.tasks.get(row.id);
        if (before !== undefined && this.keys.get(before.project_id) !== row.repoKey) {
          this.localOnly.add(row.id);
          this.o.logger.warn(
            `task ${row.id} stays on this machine only: another machine's task has its number in the shared store`,
            { task: row.id, project: before.project_name },
          );
          continue;
        }
        this.versions.set(row.id, row.version);
        const elsewhere = row.machine !== this.o.machine;
        each(row, () => {
          if (row.removed) {
            if (before === undefined) return;
            this.o.tasks.delete(row.id);
            if (elsewhere) push(applied.removed, before.project_name, row.id);
            return;
          }
          written.push(row);
          // A second clone of the repository here keeps its own task.
          if (this.o.tasks.put({ ...row, project_id: before?.project_id ?? projectId }) && elsewhere)
            changed.add(row.id);
          if (elsewhere && row.merged_commit !== null && before?.merged_commit === null)
            applied.merged.push(row.id);
        });
      }
      for (const row of written) {
        each(row, () => {
          // The store leaves out an edge to a number another task holds; this machine keeps its own.
          const kept = this.o.tasks.dependencies(row.id).filter((id) => this.localOnly.has(id));
          const after = [
            ...new Set([
              ...row.after.filter((id) => !this.localOnly.has(id) && this.o.tasks.get(id) !== undefined),
              ...kept,
            ]),
          ].sort((a, b) => a - b);
          if (this.o.tasks.dependencies(row.id).join() === after.join()) return;
          this.o.tasks.setDependencies(row.id, after);
          if (row.machine !== this.o.machine) changed.add(row.id);
        });
      }
    });
    for (const id of changed) {
      const task = this.o.tasks.get(id);
      if (task !== undefined) push(applied.changed, task.project_name, id);
    }
    if (applied.changed.size > 0 || applied.removed.size > 0 || applied.merged.length > 0)
      this.o.onApplied(applied);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function push<K>(map: Map<K, number[]>, key: K, id: number): void {
  map.set(key, [...(map.get(key) ?? []), id]);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
