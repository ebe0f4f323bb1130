/** A task row as the board's card: its dependencies, its sessions and its tracker link. */
import type { TaskCard, TaskColumn, ColumnSetBy } from '../events/task-card.js';
import { loadRepoConfig } from '../projects/index.js';
import type { SessionStore, TaskSessionRow } from '../store/sessions.js';
import type { TaskStore, TaskWithProject } from '../store/tasks.js';
import { trackerLink } from './tracker.js';

export class Cards {
  constructor(
    private readonly store: TaskStore,
    private readonly sessions: SessionStore,
  ) {}

  card(task: TaskWithProject, template = trackerTemplate(task.project_root)): TaskCard {
    const after = this.store.dependencies(task.id);
    return this.build(
      task,
      template,
      this.store.position(task),
      after,
      this.waitingFor(after),
      this.sessions.ofTask(task.id),
    );
  }

  /**
   * Cards of `tasks` as listed (by column, then place): the dependencies and sessions read once
   * for all, not once per card, so a board of a thousand cards is a few queries.
   */
  cards(
    tasks: readonly TaskWithProject[],
    projectId: string | undefined,
    template: (root: string) => string | undefined,
  ): TaskCard[] {
    const after = new Map<number, number[]>();
    for (const edge of this.store.allEdges(projectId))
      after.set(edge.task_id, [...(after.get(edge.task_id) ?? []), edge.after_id]);
    const sessions = new Map<number, TaskSessionRow[]>();
    for (const s of this.sessions.withTasks(projectId))
      if (s.task_id !== null) sessions.set(s.task_id, [...(sessions.get(s.task_id) ?? []), s]);
    const landed = new Map(tasks.map((t) => [t.id, t.merged_commit !== null]));
    const place = new Map<string, number>();
    return tasks.map((task) => {
      const deps = after.get(task.id) ?? [];
      const key = `${task.project_id}\0${task.board_column}`;
      const position = place.get(key) ?? 0;
      place.set(key, position + 1);
      const waiting = deps.filter((id) =>
        landed.has(id) ? landed.get(id) === false : this.waitingFor([id]).length > 0,
      );
      return this.build(
        task,
        template(task.project_root),
        position,
        deps,
        waiting,
        sessions.get(task.id) ?? [],
      );
    });
  }

  private build(
    task: TaskWithProject,
    template: string | undefined,
    position: number,
    after: number[],
    waitingFor: number[],
    sessions: readonly TaskSessionRow[],
  ): TaskCard {
    return {
      id: task.id,
      project: task.project_name,
      projectRoot: task.project_root,
      title: task.title,
      description: task.description,
      scope: JSON.parse(task.scope_json) as string[],
      tracker: task.tracker,
      trackerUrl: trackerLink(task.tracker, template),
      column: task.board_column as TaskColumn,
      columnSetBy: task.column_set_by as ColumnSetBy,
      position,
      after,
      waitingFor,
      review: task.review as TaskCard['review'],
      sessions: sessions.map((s) => ({
        id: s.id,
        name: s.name,
        agent: s.agent,
        state: s.state,
        removed: s.removed_at !== null,
      })),
      mergedCommit: task.merged_commit,
      createdAt: task.created_at,
      updatedAt: task.updated_at,
    };
  }

  /** Of `after`, the tasks whose work has not landed yet (a removed task no longer holds anyone back). */
  waitingFor(after: readonly number[]): number[] {
    return after.filter((id) => {
      const other = this.store.get(id);
      return other !== undefined && other.merged_commit === null;
    });
  }
}

/** The repository's `tasks.trackerUrl`; a config that cannot be read gives no links rather than no board. */
export function trackerTemplate(root: string): string | undefined {
  try {
    return loadRepoConfig(root).tasks?.trackerUrl;
  } catch {
    return undefined;
  }
}
