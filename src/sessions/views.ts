/** How sessions look from outside: the API's view of a row, and `peek`'s "what is it doing now". */
import type { PeekView, SessionView } from '../api/index.js';
import type { EventStore } from '../store/events.js';
import type { SessionWithProject } from '../store/sessions.js';
import { changedFiles } from '../worktrees/index.js';

export function toView(
  session: SessionWithProject,
  running: boolean,
  queuePosition: number | null,
): SessionView {
  return {
    id: session.id,
    name: session.name,
    project: session.project_name,
    projectRoot: session.project_root,
    agent: session.agent,
    model: session.model,
    permissionMode: session.permission_mode,
    prompt: session.prompt,
    state: session.state,
    reason:
      session.state_reason_json === null
        ? null
        : (JSON.parse(session.state_reason_json) as SessionView['reason']),
    pinned: session.pinned === 1,
    branch: session.branch,
    baseRef: session.base_ref,
    baseCommit: session.base_commit,
    worktree: session.worktree,
    hostPid: session.host_pid,
    running,
    activity: session.activity,
    lastSeq: session.last_seq,
    inputTokens: session.input_tokens,
    outputTokens: session.output_tokens,
    costUsd: session.cost_usd,
    createdAt: session.created_at,
    updatedAt: session.updated_at,
    lastEventAt: session.last_event_at,
    queuePosition,
    ...(session.task_id === null || session.task_title === null
      ? {}
      : { task: { id: session.task_id, title: session.task_title, tracker: session.task_tracker } }),
  };
}

/** The running tool (if any), the last thing the agent said, and the files changed so far. */
export async function peekAt(
  session: SessionWithProject,
  view: SessionView,
  events: EventStore,
): Promise<PeekView> {
  const recent = events.latest(session.id, ['tool.started', 'tool.finished', 'message.added'], 50);
  const finished = new Set(
    recent.map((e) => (e.type === 'tool.finished' ? e.toolId : undefined)).filter((id) => id !== undefined),
  );
  const running = recent.find((e) => e.type === 'tool.started' && !finished.has(e.toolId));
  const lastMessage = recent.find((e) => e.type === 'message.added' && e.role === 'assistant');
  const files = await changedFiles(session.worktree, session.base_commit).catch(() => []);
  return {
    session: view,
    currentStep:
      running?.type === 'tool.started' ? `running ${running.tool}: ${running.input}` : session.activity,
    lastOutput: lastMessage?.type === 'message.added' ? lastMessage.text : null,
    filesChanged: files,
  };
}
