/**
 * What the machines of a workspace share of their tasks (decision 147): the ledger's rows and
 * its operations, implemented on PostgreSQL by src/cluster/tasks.ts.
 */
import type { ProjectRow } from '../store/sessions.js';
import type { NewTask, QueuedTaskWrite, TaskFields, TaskRow } from '../store/tasks.js';

/** A task's own fields, as every store of tasks holds them. */
export type TaskBody = Omit<TaskRow, 'id' | 'project_id'>;

/** One task as the ledger holds it: its repository's identity instead of a project, and its dependencies. */
export interface LedgerTask extends TaskBody {
  id: number;
  repoKey: string;
  /** Removed: kept as a tombstone so every machine learns of it. */
  removed: boolean;
  /** The machine that wrote it last. */
  machine: string;
  version: number;
  after: number[];
}

export type LedgerNewTask = Omit<NewTask, 'project_id'> & { repoKey: string };

/**
 * The shared store of tasks. Every write returns the rows it changed, read in its transaction;
 * none when the task is not there (or removed).
 */
export interface TaskLedger {
  /** A task number no machine has used: for a task kept on this machine only. */
  nextId(): Promise<number>;
  add(task: LedgerNewTask, after: readonly number[], now: string): Promise<LedgerTask[]>;
  edit(
    id: number,
    fields: TaskFields,
    after: readonly number[] | undefined,
    now: string,
  ): Promise<LedgerTask[]>;
  /**
   * With `unlessChangedAfter` (a queued automatic move): nothing is written when the task's row
   * changed after that version, and the row is answered as it is.
   */
  move(
    id: number,
    column: string,
    setBy: string,
    position: number | undefined,
    now: string,
    unlessChangedAfter?: number,
  ): Promise<LedgerTask[]>;
  setMerged(id: number, commit: string, now: string): Promise<LedgerTask[]>;
  /** Refuses (`TaskAwaitedError`) while a live, unlanded task waits for it; its edges go with it. */
  remove(id: number, now: string): Promise<LedgerTask[]>;
  /** Rows written after `version`, in version order. */
  changedSince(version: number): Promise<LedgerTask[]>;
  /** Every live task of a repository. */
  ofRepository(repoKey: string): Promise<LedgerTask[]>;
  /**
   * At join: the id sequence moved past `maxLocalId`, and `tasks` the ledger lacks stored under
   * their own ids (their dependencies on taken ids left out). Answers the ids taken by another
   * task already — one of `tasks` whose repository or creation time differs, or any of
   * `ownIds` (this machine's tasks kept here) the ledger holds — which stay on this machine only.
   */
  join(
    tasks: readonly LedgerTask[],
    ownIds: readonly number[],
    maxLocalId: number,
  ): Promise<{ uploaded: number[]; taken: number[] }>;
  /** Called when another write may be waiting to be read (a notification, a reconnect). */
  onChange(listener: () => void): () => void;
}

/** What one pass applied to SQLite: tasks written by another machine. */
export interface Applied {
  /** Added or changed here, by project name. */
  changed: Map<string, number[]>;
  /** Removed here, by project name. */
  removed: Map<string, number[]>;
  /** Tasks whose work landed (elsewhere): what waited for them may start. */
  merged: number[];
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * What the tasks domain writes through in a shared workspace (decision 147): the workspace's store
 * of tasks as this machine sees it, implemented by src/cluster/peers/tasks.ts (`SharedTasks`).
 * On one machine there is none, and every task is this machine's own.
 */
export interface TaskShare {
  /** The repository key of a task whose truth is the ledger; undefined for a task kept here. */
  sharedKey(task: Pick<TaskRow, 'id' | 'project_id'>): string | undefined;
  /** The key of a project this machine may be seeing for the first time (its tasks read then). */
  know(project: ProjectRow): Promise<string | undefined>;
  /** A task number no machine has used; refused before this machine joined. */
  nextId(): Promise<number>;
  /** A hand write through the ledger, then its rows here; throws, changing nothing, when it cannot. */
  write(ledgerWrite: (ledger: TaskLedger) => Promise<LedgerTask[]>, taskId?: number): Promise<LedgerTask[]>;
  /** An automatic write already applied here, sent once the ledger can be reached. */
  queue(write: DistributiveOmit<QueuedTaskWrite, 'baseVersion'>): Promise<void>;
}
