/** A task row as the board's card: its dependencies, its sessions and its tracker link. */
import type { TaskCard, TaskColumn, ColumnSetBy } from '../events/task-card.js';
import { loadRepoConfig } from '../projects/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { TaskStore, TaskWithProject } from '../store/tasks.js';
import { trackerLink } from './tracker.js';

export class Cards {
  constructor(
    private readonly store: TaskStore,
    private readonly sessionsOf: (taskId: number) => SessionWithProject[],
  ) {}

  card(task: TaskWithProject, template = trackerTemplate(task.project_root)): TaskCard {
    const after = this.store.dependencies(task.id);
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
      position: this.store.position(task),
      after,
      waitingFor: this.waitingFor(after),
      review: task.review as TaskCard['review'],
      sessions: this.sessionsOf(task.id).map((s) => ({ id: s.id, name: s.name, agent: s.agent, state: s.state, removed: s.removed_at !== null })),
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
