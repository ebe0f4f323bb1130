/**
 * What tasks do as the workspace changes: a linked session's state moves its card (decision 72),
 * its work landing marks it done and lets the tasks waiting for it start on the new base (a
 * scheduler gate holds them until then), and `.baton/status.md` is rewritten on every change.
 */
import type { WorkspaceBus } from '../bus/index.js';
import type { TaskColumn } from '../events/task-card.js';
import { TaskMoved, TaskSynced, type WorkspaceEvent } from '../events/workspace.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';
import { gitOut, whileRewriting } from '../worktrees/index.js';
import { columnFromSessions } from './columns.js';
import { baseWithLanded, type Landed } from './landed-elsewhere.js';
import type { TaskService } from './service.js';
import type { Applied } from './ledger.js';
import { contextFor, type TaskSessions } from './start.js';
import { renderStatus, writeStatus } from './status-file.js';

const log = createLogger('tasks');

export const DEPENDENCY_GATE = 'task dependencies';

/** How often a session waiting for another machine's landing to reach here looks again. */
export const DEFAULT_RECHECK_MS = 30_000;

export class TaskWatch {
  /** Queued sessions being moved onto their new base: held until that is done. */
  private readonly moving = new Set<string>();
  /** Queued sessions whose prerequisites landed on another machine, not on any base here yet: why. */
  private readonly awaiting = new Map<string, string>();
  private recheck: NodeJS.Timeout | undefined;
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly service: TaskService,
    private readonly sessions: TaskSessions,
    private readonly bus: WorkspaceBus,
    private readonly recheckMs = DEFAULT_RECHECK_MS,
  ) {}

  /** Before the sessions are scheduled: the gate, the context of each start, and the bus. */
  start(): void {
    this.stops.push(
      this.sessions.addGate({ name: DEPENDENCY_GATE, holds: (session) => this.holds(session) }),
    );
    this.sessions.setContextProvider((session) => contextFor(this.service, this.sessions, session));
    this.stops.push(this.bus.subscribe((event) => this.safely(event.type, () => this.on(event))));
    // A supervisor stopped while moving a session onto its new base: look again.
    for (const session of this.sessions.list()) {
      if (session.state === 'queued' && session.task_id !== null) this.releaseIfReady(session.task_id);
    }
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    clearInterval(this.recheck);
  }

  /** Why a queued session of a task must wait, or undefined. */
  holds(session: SessionWithProject): string | undefined {
    if (session.task_id === null) return undefined;
    if (this.moving.has(session.id)) return 'moving onto the new base';
    const awaiting = this.awaiting.get(session.id);
    if (awaiting !== undefined) return awaiting;
    const after = this.service.options.tasks.dependencies(session.task_id);
    const waiting = this.service.cards.waitingFor(after);
    if (waiting.length === 0) return undefined;
    return `after ${waiting.map((id) => `task ${id} (${this.service.options.tasks.get(id)?.title ?? '?'})`).join(', ')} land${waiting.length === 1 ? 's' : ''}`;
  }

  private on(event: WorkspaceEvent): void {
    switch (event.type) {
      case 'session.state_changed':
      case 'session.removed':
        this.followSession(event.data.sessionId);
        this.writeStatus(event.data.project);
        return;
      case 'session.dispatched':
        this.writeStatus(event.data.project);
        return;
      case 'merge.landed':
        for (const member of event.data.sessions) this.landed(member.sessionId, event.data.commit);
        return;
      case 'task.added':
      case 'task.edited':
      case 'task.moved':
      case 'task.session_linked':
        this.writeStatus(event.data.task.project);
        return;
      case 'task.removed':
      case 'task.synced':
        this.writeStatus(event.data.project);
        return;
      default:
        return;
    }
  }

  /** The card goes where its live sessions' states say; a landed task stays done. */
  private followSession(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session?.task_id === null || session?.task_id === undefined) return;
    const task = this.service.options.tasks.get(session.task_id);
    if (task === undefined || task.merged_commit !== null) return;
    const live = this.service.options.sessions.ofTask(task.id).filter((s) => s.removed_at === null);
    const column = columnFromSessions(live.map((s) => s.state));
    if (column === undefined || column === task.board_column) return;
    this.moveBy(task.id, task.board_column as TaskColumn, column, 'session');
  }

  /** A task's work landed: it is done, and the tasks that waited for it may go. */
  private landed(sessionId: string, commit: string): void {
    const session = this.sessions.get(sessionId);
    if (session?.task_id === null || session?.task_id === undefined) return;
    const task = this.service.options.tasks.get(session.task_id);
    if (task === undefined) return;
    this.service.setMerged(task.id, commit);
    this.moveBy(task.id, task.board_column as TaskColumn, 'done', 'merge');
    for (const dependent of this.service.options.tasks.dependents(task.id)) this.releaseIfReady(dependent);
  }

  /**
   * Another machine's task changes reached this machine's store (decision 147): the boards told
   * (their own `task.*` events come relayed, so not published again), and what waited for a task
   * that landed there may go.
   */
  synced(applied: Applied): void {
    this.safely('task.synced', () => {
      for (const project of new Set([...applied.changed.keys(), ...applied.removed.keys()])) {
        this.bus.publish(TaskSynced, {
          project,
          changed: applied.changed.get(project) ?? [],
          removed: applied.removed.get(project) ?? [],
        });
      }
      for (const id of applied.merged)
        for (const dependent of this.service.options.tasks.dependents(id)) this.releaseIfReady(dependent);
    });
  }

  /** When every prerequisite of the task has landed, its queued sessions move onto the new base, then start. */
  private releaseIfReady(taskId: number): void {
    const after = this.service.options.tasks.dependencies(taskId);
    if (after.length === 0 || this.service.cards.waitingFor(after).length > 0) return;
    for (const session of this.sessions.list()) {
      if (session.task_id !== taskId || session.state !== 'queued' || this.moving.has(session.id)) continue;
      this.moving.add(session.id);
      this.rebase(session)
        .catch((error: unknown) =>
          log.error('could not move a waiting session onto its new base; it starts on its old one', {
            session: session.id,
            error: errorMessage(error),
          }),
        )
        .finally(() => {
          this.moving.delete(session.id);
          this.sessions
            .schedule()
            .catch((error: unknown) => log.error('schedule failed', { error: errorMessage(error) }));
        });
    }
  }

  /**
   * Resets the untouched worktree of a queued session to the tip of its base branch — one that has
   * the work its prerequisites landed, which for a landing on another machine may be the remote's.
   */
  private async rebase(session: SessionWithProject): Promise<void> {
    const local = await gitOut(session.project_root, [
      'rev-parse',
      '--verify',
      `${session.base_ref}^{commit}`,
    ]);
    const found = await baseWithLanded(
      session.project_root,
      session.base_ref,
      local,
      this.landedBefore(session),
    );
    if ('waiting' in found) return this.await(session.id, found.waiting);
    this.awaiting.delete(session.id);
    const { tip } = found;
    if (tip === session.base_commit || session.worktree === session.project_root) return;
    const changes = await gitOut(session.worktree, ['status', '--porcelain']);
    if (changes !== '') throw new Error(`its worktree ${session.worktree} has changes already`);
    // A snapshot (the radar's) waits while HEAD and the files move (decision 463): between them it
    // would read the landed work as this session's change.
    await whileRewriting(session.worktree, () =>
      gitOut(session.worktree, ['reset', '--quiet', '--hard', tip]),
    );
    this.sessions.rebaseQueued(session.id, tip);
    log.info('moved a waiting session onto the new base', {
      session: session.id,
      from: session.base_commit,
      to: tip,
    });
  }

  /** What the session's task waited for, as landed. */
  private landedBefore(session: SessionWithProject): Landed[] {
    if (session.task_id === null) return [];
    return this.service.options.tasks.dependencies(session.task_id).flatMap((id) => {
      const task = this.service.options.tasks.get(id);
      return task?.merged_commit === null || task === undefined
        ? []
        : [{ taskId: id, title: task.title, commit: task.merged_commit }];
    });
  }

  /** Held, saying why, and looked at again every `recheckMs` until the landed work reached a base here. */
  private await(sessionId: string, why: string): void {
    if (!this.awaiting.has(sessionId))
      log.warn('a waiting session is held until its prerequisites reach this machine', {
        session: sessionId,
        why,
      });
    this.awaiting.set(sessionId, why);
    this.recheck ??= setInterval(() => this.lookAgain(), this.recheckMs);
    this.recheck.unref();
  }

  private lookAgain(): void {
    for (const id of [...this.awaiting.keys()]) {
      const session = this.sessions.list().find((s) => s.id === id);
      if (session === undefined || session.state !== 'queued' || session.task_id === null)
        this.awaiting.delete(id);
      else this.releaseIfReady(session.task_id);
    }
    if (this.awaiting.size === 0) {
      clearInterval(this.recheck);
      this.recheck = undefined;
    }
  }

  private moveBy(taskId: number, from: TaskColumn, to: TaskColumn, by: 'session' | 'merge'): void {
    this.service.moveBy(taskId, to, by);
    this.bus.publish(TaskMoved, { task: this.service.card(taskId), from, to, by });
  }

  /** `.baton/status.md` of a project that has tasks. */
  private writeStatus(projectName: string): void {
    const project = this.service.options.sessions.findProject(projectName);
    if (project === undefined || this.service.options.tasks.count(project.id) === 0) return;
    const rows = this.sessions
      .list()
      .filter((s) => s.project_id === project.id)
      .map((s) => ({
        session: s.name,
        agent: s.agent,
        task:
          s.task_id === null || s.task_title === null
            ? null
            : { id: s.task_id, title: s.task_title, tracker: s.task_tracker },
        state: s.state,
        updatedAt: s.updated_at,
      }));
    writeStatus(project.root, renderStatus(rows, this.service.clock()));
  }

  private safely(what: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      log.error('tasks could not follow a workspace event', { event: what, error: errorMessage(error) });
    }
  }
}
