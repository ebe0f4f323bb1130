/** A group as the API shows it. */
import type { GroupSummary } from '../api/attempts.js';
import type { AttemptGroupWithProject } from '../store/attempts.js';

export function summaryOf(group: AttemptGroupWithProject, sessions: number): GroupSummary {
  return {
    id: group.id,
    kind: group.kind,
    project: group.project_name,
    prompt: group.prompt,
    taskId: group.task_id,
    state: group.state,
    sessions,
    pickedSessionId: group.picked_session_id,
    mergeId: group.merge_id,
    message: group.message,
    createdAt: group.created_at,
  };
}
