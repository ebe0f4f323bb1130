/**
 * Tasks shared by the machines of a workspace (issue 20, decision 147). The store the machines
 * share (`TaskLedger`, PostgreSQL in src/cluster/tasks.ts) is the truth for the tasks of a
 * repository with a remote; each machine's SQLite `tasks` and `task_dependencies` stay the read
 * model every synchronous read uses. `SharedTasks` routes the writes of shared repositories to
 * the ledger, applies what the ledger holds to SQLite (this machine's writes at once, the others'
 * when the ledger says something changed), and queues the watch's automatic moves while the
 * ledger cannot be reached.
 */
import type { ProjectRow, SessionStore } from '../store/sessions.js';
import type { TaskRow, TaskStore } from '../store/tasks.js';
import type { Applied, LedgerTask, TaskLedger } from './ledger.js';

export type { Applied, LedgerNewTask, LedgerTask, TaskLedger } from './ledger.js';

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

export class SharedTasks {
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
  private readonly outbox: { what: string; write: () => Promise<unknown> }[] = [];
  private flushing: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private delayMs: number;
  private closed = false;
  private readonly unlisten: () => void;

  constructor(private readonly o: SharedTasksOptions) {
    this.delayMs = o.retry?.firstMs ?? 200;
    this.unlisten = o.ledger.onChange(() => {
      // A start the store failed is tried again on its next word (a reconnect).
      if (!this.joined && this.indexed) this.join().catch((error: unknown) => o.logger.warn('could not join the shared tasks yet', { error: message(error) }));
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
    let maxLocalId = 0;
    for (const task of this.o.tasks.list()) {
      maxLocalId = Math.max(maxLocalId, task.id);
      const repoKey = this.keys.get(task.project_id);
      if (repoKey !== null && repoKey !== undefined) mine.push({ ...task, repoKey, removed: false, machine: this.o.machine, version: 0, after: this.o.tasks.dependencies(task.id) });
    }
    const { taken } = await this.o.ledger.join(mine, maxLocalId);
    for (const id of taken) {
      this.localOnly.add(id);
      this.o.logger.warn(`task ${id} stays on this machine only: another machine's task has its number in the shared store`, { task: id });
    }
    this.joined = true;
    await this.catchUp();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
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
      this.o.logger.warn("could not read a repository's shared tasks yet", { project: project.name, error: message(error) });
    }
    return key;
  }

  nextId(): Promise<number> {
    return this.o.ledger.nextId();
  }

  /** A hand write: the ledger's transaction, then its rows in SQLite; throws (changing nothing here) when the ledger cannot be reached. */
  async write(ledgerWrite: (ledger: TaskLedger) => Promise<LedgerTask[]>): Promise<LedgerTask[]> {
    const rows = await ledgerWrite(this.o.ledger);
    this.apply(rows);
    return rows;
  }

  /** An automatic write (already applied here): sent to the ledger in order, retried while it cannot be reached. */
  queue(what: string, ledgerWrite: (ledger: TaskLedger) => Promise<LedgerTask[]>): Promise<void> {
    this.outbox.push({ what, write: async () => this.apply(await ledgerWrite(this.o.ledger)) });
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
          if (!this.closed) this.o.logger.warn("could not read the other machines' tasks; the next change or reconnect reads them", { error: message(error) });
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
    if (this.flushing !== undefined || this.closed) return this.flushing ?? Promise.resolve();
    this.flushing = (async () => {
      for (let next = this.outbox[0]; next !== undefined && !this.closed; next = this.outbox[0]) {
        try {
          await next.write();
          this.outbox.shift();
          this.delayMs = this.o.retry?.firstMs ?? 200;
        } catch (error) {
          this.o.logger.warn('could not share a task change; trying again', { change: next.what, queued: this.outbox.length, error: message(error) });
          clearTimeout(this.retry);
          this.retry = setTimeout(() => void this.flush(), this.delayMs);
          this.retry.unref();
          this.delayMs = Math.min(this.delayMs * 2, this.o.retry?.maxMs ?? 5_000);
          return;
        }
      }
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /**
   * Rows of the ledger into SQLite, tasks before dependencies; reports what another machine
   * changed. A row SQLite refuses (a constraint of this machine's) is skipped with a warning
   * rather than stopping every later row.
   */
  private apply(rows: readonly LedgerTask[]): void {
    const applied: Applied = { changed: new Map(), removed: new Map(), merged: [] };
    const changed = new Set<number>();
    const written: LedgerTask[] = [];
    const each = (row: LedgerTask, work: () => void): void => {
      try {
        work();
      } catch (error) {
        this.o.logger.warn(`task ${row.id} from the shared store could not be written here; skipped`, { task: row.id, error: message(error) });
      }
    };
    this.o.tasks.transact(() => {
      for (const row of rows) {
        const projectId = this.projects.get(row.repoKey);
        if (projectId === undefined || this.localOnly.has(row.id) || (this.versions.get(row.id) ?? 0) > row.version) continue;
        this.versions.set(row.id, row.version);
        const elsewhere = row.machine !== this.o.machine;
        each(row, () => {
          const before = this.o.tasks.get(row.id);
          if (row.removed) {
            if (before === undefined) return;
            this.o.tasks.delete(row.id);
            if (elsewhere) push(applied.removed, before.project_name, row.id);
            return;
          }
          written.push(row);
          if (this.o.tasks.put({ ...row, project_id: projectId }) && elsewhere) changed.add(row.id);
          if (elsewhere && row.merged_commit !== null && before?.merged_commit === null) applied.merged.push(row.id);
        });
      }
      for (const row of written) {
        each(row, () => {
          const after = row.after.filter((id) => !this.localOnly.has(id) && this.o.tasks.get(id) !== undefined);
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
    if (applied.changed.size > 0 || applied.removed.size > 0 || applied.merged.length > 0) this.o.onApplied(applied);
  }
}

function push<K>(map: Map<K, number[]>, key: K, id: number): void {
  map.set(key, [...(map.get(key) ?? []), id]);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
