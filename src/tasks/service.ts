/**
 * The tasks domain's face to the server: the board, adding, editing, moving and removing tasks,
 * and their decisions and notes. Starting sessions is in start.ts; following the workspace (the
 * columns, status.md, dependencies) in watch.ts.
 */
import type { z } from 'zod';
import type {
  TaskAddRequest,
  TaskBoard,
  TaskBoardQuery,
  TaskDetail,
  TaskEditRequest,
  TaskEntry,
  TaskMoveRequest,
} from '../api/tasks.js';
import type { WorkspaceBus } from '../bus/index.js';
import { TASK_COLUMNS, type TaskCard, type TaskColumn } from '../events/task-card.js';
import {
  TaskAdded,
  TaskDecided,
  TaskEdited,
  TaskMoved,
  TaskNoted,
  TaskRemoved,
} from '../events/workspace.js';
import { loadRepoConfig } from '../projects/index.js';
import { crashPoint } from '../shared/crash-points.js';
import { PreparedJson } from '../shared/prepared-json.js';
import { InternalError, InvalidInputError, NotAGitRepositoryError } from '../shared/errors.js';
import type { SessionStore } from '../store/sessions.js';
import type { TaskFields, TaskStore, TaskWithProject } from '../store/tasks.js';
import { Cards, trackerTemplate } from './cards.js';
import { dependencyCycle } from './cycle.js';
import {
  DependencyCycleError,
  ScopeOverlapError,
  TaskAwaitedError,
  TaskNotFoundError,
  type Overlap,
} from './errors.js';
import { EntryFiles, type EntryKind } from './files.js';
import { projectFor, repositoryFiles } from './repo.js';
import { parseScope, scopeOverlap, unmatchedGlobs } from './scope.js';
import type { TaskShare } from './ledger.js';
import { excludeTaskFiles } from './status-file.js';
import { parseTrackerRef } from './tracker.js';

export interface TaskServiceOptions {
  tasks: TaskStore;
  sessions: SessionStore;
  bus: WorkspaceBus;
  clock?: () => Date;
}

/** Columns whose tasks are being worked on: a new scope that meets theirs is an overlap. */
const BUSY = new Set(['running', 'needs_input', 'review']);

export class TaskService {
  readonly files = new EntryFiles();
  readonly cards: Cards;
  readonly clock: () => Date;
  /** In a shared workspace: the store the machines share, truth for the tasks of repositories with a remote. */
  private shared: TaskShare | undefined;
  /**
   * The last board built for each project ('' for every project), read-only (frozen), with the
   * database's change mark and the tracker templates it was built from, and the last answer made
   * of it: kept with its bytes while its entry counts stay the same too (decision 465).
   */
  private readonly boards = new Map<
    string,
    {
      mark: string;
      templates: ReadonlyMap<string, string | undefined>;
      columns: TaskBoard['columns'];
      roots: ReadonlySet<string>;
      answer?: { entries: string; board: PreparedJson<TaskBoard> };
    }
  >();

  constructor(readonly options: TaskServiceOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.cards = new Cards(options.tasks, options.sessions);
  }

  /** From now on the tasks of shared repositories are written through `shared` (decision 147). */
  share(shared: TaskShare): void {
    this.shared = shared;
  }

  async board(query: z.output<typeof TaskBoardQuery>, cwd: string | undefined): Promise<TaskBoard> {
    return (await this.boardAnswer(query, cwd)).value;
  }

  /**
   * The board as `GET /api/tasks` sends it: the same answer, serialized once and sent as the same
   * bytes to every load until a card or an entry count changes (decision 465, "The kept board is sent as bytes made once, with a tag for a reload").
   */
  async boardAnswer(
    query: z.output<typeof TaskBoardQuery>,
    cwd: string | undefined,
  ): Promise<PreparedJson<TaskBoard>> {
    const project =
      query.all === 'true' || (query.project === undefined && cwd === undefined)
        ? undefined
        : await projectFor(this.options.sessions, query.project, cwd).catch((error: unknown) => {
            // Outside any repository, without a project named: every project's tasks.
            if (query.project === undefined && error instanceof NotAGitRepositoryError) return undefined;
            throw error;
          });
    // A clone first seen here (or by a dispatch) reads its repository's shared tasks now.
    for (const known of project === undefined ? this.options.sessions.projects() : [project])
      await this.shared?.know(known);
    const templates = new Map<string, string | undefined>();
    const template = (root: string): string | undefined =>
      templates.has(root) ? templates.get(root) : templates.set(root, trackerTemplate(root)).get(root);
    // The cards are built from the rows the board mark watches and the repositories' tracker
    // templates alone: while neither has changed since the last board of this project, that board
    // is the answer again (decision 420). The mark is read after anything above that may write.
    const mark = this.options.tasks.boardMark();
    const key = project?.id ?? '';
    let built = this.boards.get(key);
    if (
      built === undefined ||
      built.mark !== mark ||
      [...built.templates].some(([root, used]) => template(root) !== used)
    ) {
      const cards = this.cards.cards(this.options.tasks.list(project?.id), project?.id, template);
      for (const card of cards) Object.freeze(card);
      built = {
        mark,
        templates: new Map(templates),
        columns: Object.freeze(
          TASK_COLUMNS.map((column) =>
            Object.freeze({ column, tasks: Object.freeze(cards.filter((c) => c.column === column)) }),
          ),
        ) as TaskBoard['columns'],
        roots: new Set(cards.map((c) => c.projectRoot)),
      };
      this.boards.set(key, built);
    }
    // The entry counts are read from the files each time (a person's edit counts at once); the
    // project's name moves the mark. The kept answer stands while its counts read the same.
    const entries = this.entryCounts(built.roots);
    const counted = JSON.stringify(entries);
    if (built.answer?.entries !== counted) {
      const board: TaskBoard = Object.freeze({
        project: project?.name ?? null,
        columns: built.columns,
        entries: Object.freeze(
          Object.fromEntries(Object.entries(entries).map(([id, n]) => [id, Object.freeze(n)])),
        ),
      });
      built.answer = { entries: counted, board: new PreparedJson(board) };
    }
    return built.answer.board;
  }

  /** Decisions and notes per task, for the page's cards; read from the (cached) `.baton/` files. */
  private entryCounts(roots: ReadonlySet<string>): TaskBoard['entries'] {
    const counts: TaskBoard['entries'] = {};
    for (const root of roots) {
      for (const kind of ['decisions', 'notes'] as const) {
        let entries;
        try {
          entries = this.files.read(root, kind);
        } catch {
          continue; // a hand-broken file is reported by `task show`; the board still loads
        }
        for (const entry of entries) {
          const count = (counts[String(entry.task)] ??= { decisions: 0, notes: 0 });
          count[kind]++;
        }
      }
    }
    return counts;
  }

  get(ref: string | number): TaskWithProject {
    const id = typeof ref === 'number' ? ref : Number(ref.replace(/^#/, ''));
    const task = Number.isInteger(id) && id > 0 ? this.options.tasks.get(id) : undefined;
    if (task === undefined) throw new TaskNotFoundError(String(ref));
    return task;
  }

  card(ref: string | number): TaskCard {
    return this.cards.card(this.get(ref));
  }

  /** The card and every readable decision and note; each broken file is named, none hides the rest. */
  detail(ref: string): TaskDetail {
    const task = this.get(ref);
    const decisions = this.files.readEach(task.project_root, 'decisions', task.id);
    const notes = this.files.readEach(task.project_root, 'notes', task.id);
    return {
      task: this.cards.card(task),
      decisions: decisions.entries,
      notes: notes.entries,
      broken: [...decisions.broken, ...notes.broken],
    };
  }

  async add(
    body: z.output<typeof TaskAddRequest>,
    cwd: string | undefined,
  ): Promise<{ task: TaskCard; warnings: string[] }> {
    const project = await projectFor(this.options.sessions, body.project, cwd);
    const tracker = body.tracker === undefined ? null : parseTrackerRef(body.tracker);
    const scope = parseScope(body.scope);
    for (const id of body.after) this.sameProject(id, project.id);
    const warnings = await this.checkScope(project.root, scope, body.after, body.force, undefined);
    await this.prepareFiles(project.root);
    const fields = {
      title: body.title,
      description: body.description,
      scope_json: JSON.stringify(scope),
      tracker,
      board_column: body.column,
    };
    const repoKey = await this.shared?.know(project);
    let task: TaskCard;
    if (this.shared !== undefined && repoKey !== undefined) {
      const id = (
        await this.shared.write((ledger) => ledger.add({ ...fields, repoKey }, body.after, this.now()))
      )[0]!.id;
      task = this.card(id);
      this.options.bus.publish(TaskAdded, { task });
    } else {
      const nextId = await this.shared?.nextId();
      task = this.withEvent(() => {
        const id = this.options.tasks.insert(
          { project_id: project.id, ...fields },
          body.after,
          this.now(),
          nextId,
        );
        const card = this.card(id);
        this.options.bus.publish(TaskAdded, { task: card });
        return card;
      });
    }
    crashPoint('task.added');
    return { task, warnings };
  }

  async edit(
    ref: string,
    body: z.output<typeof TaskEditRequest>,
  ): Promise<{ task: TaskCard; warnings: string[] }> {
    const task = this.get(ref);
    const fields: TaskFields = {};
    if (body.title !== undefined) fields.title = body.title;
    if (body.description !== undefined) fields.description = body.description;
    if (body.tracker !== undefined)
      fields.tracker = body.tracker === null ? null : parseTrackerRef(body.tracker);
    if (body.review !== undefined) fields.review = body.review;
    let warnings: string[] = [];
    const after = body.after ?? this.options.tasks.dependencies(task.id);
    if (body.after !== undefined) {
      for (const id of body.after) this.sameProject(id, task.project_id);
      this.refuseCycle(task.id, body.after, task.project_id);
    }
    if (body.scope !== undefined) {
      const scope = parseScope(body.scope);
      warnings = await this.checkScope(task.project_root, scope, after, body.force, task.id);
      fields.scope_json = JSON.stringify(scope);
    }
    const changed = [
      ...Object.keys(fields).map((key) => (key === 'scope_json' ? 'scope' : key)),
      ...(body.after === undefined ? [] : ['after']),
    ];
    if (changed.length === 0)
      throw new InvalidInputError(
        'Nothing to change: give a title, description, scope, tracker, after or review.',
      );
    let card: TaskCard;
    if (this.shared?.sharedKey(task) !== undefined) {
      await this.shared.write((ledger) => ledger.edit(task.id, fields, body.after, this.now()), task.id);
      card = this.card(task.id);
      this.options.bus.publish(TaskEdited, { task: card, fields: changed });
    } else {
      card = this.withEvent(() => {
        this.options.tasks.update(task.id, fields, this.now());
        if (body.after !== undefined) this.options.tasks.setDependencies(task.id, body.after);
        const edited = this.card(task.id);
        this.options.bus.publish(TaskEdited, { task: edited, fields: changed });
        return edited;
      });
    }
    crashPoint('task.edited');
    return { task: card, warnings };
  }

  /** A move by hand, of any task: through the shared store for a shared repository's, else as `move`. */
  async place(
    ref: string,
    body: z.output<typeof TaskMoveRequest>,
  ): Promise<{ task: TaskCard; warnings: string[] }> {
    const task = this.get(ref);
    if (this.shared?.sharedKey(task) === undefined) return this.move(ref, body);
    await this.shared.write(
      (ledger) => ledger.move(task.id, body.column, 'hand', body.position, this.now()),
      task.id,
    );
    return this.moved(task, body);
  }

  /** A move by hand of a task kept in this machine's store only. */
  move(ref: string, body: z.output<typeof TaskMoveRequest>): { task: TaskCard; warnings: string[] } {
    const task = this.get(ref);
    if (this.shared?.sharedKey(task) !== undefined)
      throw new InternalError(`task ${task.id} is shared: it moves through place()`);
    const moved = this.withEvent(() => {
      this.options.tasks.move(task.id, body.column, 'hand', body.position, this.now());
      return this.moved(task, body);
    });
    crashPoint('task.moved');
    return moved;
  }

  /**
   * Runs a write to this machine's store and the publishing of its event in one transaction: a
   * supervisor killed between them would otherwise leave a task the event log never mentions
   * (decision 173). The event reaches subscribers once the transaction has committed.
   */
  private withEvent<T>(write: () => T): T {
    let result: T | undefined;
    try {
      this.options.tasks.transact(() => {
        result = write();
      });
    } catch (error) {
      this.options.bus.discard();
      throw error;
    }
    this.options.bus.release();
    return result as T;
  }

  private moved(
    task: TaskWithProject,
    body: z.output<typeof TaskMoveRequest>,
  ): { task: TaskCard; warnings: string[] } {
    const card = this.card(task.id);
    this.options.bus.publish(TaskMoved, {
      task: card,
      from: task.board_column as TaskCard['column'],
      to: body.column,
      by: 'hand',
    });
    return { task: card, warnings: [] };
  }

  async remove(ref: string): Promise<{ taskId: number; title: string }> {
    const task = this.get(ref);
    const waiting = this.options.tasks
      .dependents(task.id)
      .filter((id) => this.options.tasks.get(id)?.merged_commit === null);
    if (waiting.length > 0) throw new TaskAwaitedError(task.id, waiting);
    // The store checks again under its lock: another machine may have added a dependent meanwhile.
    if (this.shared?.sharedKey(task) !== undefined)
      await this.shared.write((ledger) => ledger.remove(task.id, this.now()), task.id);
    else this.options.tasks.delete(task.id);
    this.options.bus.publish(TaskRemoved, { taskId: task.id, project: task.project_name, title: task.title });
    return { taskId: task.id, title: task.title };
  }

  /**
   * The watch's moves and landings, applied here at once; in a shared repository sent to the
   * shared store too, queued and retried while it cannot be reached.
   */
  moveBy(taskId: number, to: TaskColumn, by: 'session' | 'merge'): void {
    const now = this.now();
    this.options.tasks.move(taskId, to, by, undefined, now);
    this.queueShared({ kind: 'move', taskId, column: to, setBy: by, at: now });
  }

  setMerged(taskId: number, commit: string): void {
    const now = this.now();
    this.options.tasks.setMerged(taskId, commit, now);
    this.queueShared({ kind: 'merged', taskId, commit, at: now });
  }

  private queueShared(write: Parameters<TaskShare['queue']>[0]): void {
    const task = this.options.tasks.get(write.taskId);
    if (task === undefined || this.shared?.sharedKey(task) === undefined) return;
    void this.shared.queue(write);
  }

  entry(ref: string, kind: EntryKind, text: string): TaskEntry {
    const task = this.get(ref);
    const entry = this.files.add(task.project_root, kind, task.id, text, this.clock());
    // The file is the record; the event only tells of it (a kill here: the entry kept, unannounced).
    crashPoint('task.entry-written');
    this.options.bus.publish(kind === 'decisions' ? TaskDecided : TaskNoted, {
      taskId: task.id,
      project: task.project_name,
      title: task.title,
      file: entry.file,
      text: entry.text,
    });
    crashPoint(kind === 'decisions' ? 'task.decided' : 'task.noted');
    return entry;
  }

  /**
   * Globs that match no file are warnings; a scope meeting that of a task being worked on is
   * refused (unless forced, or the other task is one this one waits for).
   */
  async checkScope(
    root: string,
    scope: readonly string[],
    after: readonly number[],
    force: boolean,
    self: number | undefined,
  ): Promise<string[]> {
    if (scope.length === 0) return [];
    const files = await repositoryFiles(root);
    const warnings = unmatchedGlobs(scope, files).map(
      (glob) => `Scope "${glob}" matches no file in the repository (yet).`,
    );
    const overlaps: Overlap[] = [];
    const project = this.options.sessions.findProjectByRoot(root);
    for (const other of this.options.tasks.list(project?.id)) {
      if (
        other.id === self ||
        after.includes(other.id) ||
        !BUSY.has(other.board_column) ||
        other.merged_commit !== null
      )
        continue;
      const shared = scopeOverlap(scope, JSON.parse(other.scope_json) as string[], files);
      if (shared.length > 0) overlaps.push({ taskId: other.id, title: other.title, files: shared });
    }
    if (overlaps.length > 0 && !force) throw new ScopeOverlapError(overlaps);
    for (const o of overlaps)
      warnings.push(
        `The scope overlaps running task ${o.taskId} (${o.title}) on ${o.files.slice(0, 5).join(', ')}; going ahead as forced.`,
      );
    return warnings;
  }

  now(): string {
    return this.clock().toISOString();
  }

  /** Baton's task files kept out of git unless the repository commits them (tasks.commitFiles). */
  private async prepareFiles(root: string): Promise<void> {
    if (loadRepoConfig(root).tasks?.commitFiles !== true) await excludeTaskFiles(root);
  }

  private sameProject(id: number, projectId: string): void {
    const other = this.options.tasks.get(id);
    if (other === undefined) throw new TaskNotFoundError(String(id));
    if (other.project_id !== projectId)
      throw new InvalidInputError(
        `Task ${id} belongs to another repository (${other.project_name}); --after takes tasks of the same repository.`,
      );
  }

  /** Refuses dependencies that would lead back to `id`, naming the cycle. */
  private refuseCycle(id: number, after: readonly number[], projectId: string): void {
    const cycle = dependencyCycle(id, after, this.options.tasks.edges(projectId));
    if (cycle !== undefined) throw new DependencyCycleError(cycle);
  }
}
