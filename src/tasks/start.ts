/**
 * Starting sessions from a task (decision 71, "Tasks are their own domain beside sessions").
 * `startTaskSessions` checks the task once, then dispatches one session per attempt, each recording the
 * task: the seam best-of-N calls with several attempts. Each session is told its task's context at
 * every start (`contextFor`).
 */
import type { z } from 'zod';
import type { DispatchRequest, SessionView } from '../api/index.js';
import type { TaskStartRequest } from '../api/tasks.js';
import type { TaskCard } from '../events/task-card.js';
import { DEFAULT_AGENT, DEFAULT_PERMISSION_MODE } from '../events/vocabulary.js';
import { TaskSessionLinked } from '../events/workspace.js';
import type { Gate } from '../scheduler/index.js';
import { loadRepoConfig } from '../projects/index.js';
import { InvalidInputError } from '../shared/errors.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { TaskWithProject } from '../store/tasks.js';
import { TaskStartedError } from './errors.js';
import { taskInstructions } from './instructions.js';
import type { TaskService } from './service.js';

/** What tasks need of the sessions domain (the session manager), without importing it. */
export interface TaskSessions {
  list(): SessionWithProject[];
  get(id: string): SessionWithProject | undefined;
  view(session: SessionWithProject): SessionView;
  dispatchForTask(request: z.output<typeof DispatchRequest>, taskId: number): Promise<SessionWithProject>;
  addGate(gate: Gate<SessionWithProject>): () => void;
  heldSessions(): readonly { id: string; gate: string; reason: string }[];
  setContextProvider(provider: (session: SessionWithProject) => string | undefined): void;
  rebaseQueued(sessionId: string, commit: string): void;
  schedule(): Promise<void>;
}

export type Attempt = z.output<typeof TaskStartRequest>;

/** States in which a session is still at the task: starting it again would be a second, unasked-for attempt. */
const AT_WORK = new Set(['queued', 'preparing', 'starting', 'working', 'needs_input', 'ready_for_review']);
const ENDED = new Set(['completed', 'failed', 'stopped']);

export async function startTaskSessions(
  service: TaskService,
  sessions: TaskSessions,
  ref: string,
  attempts: readonly Attempt[],
): Promise<{ task: TaskCard; sessions: SessionWithProject[]; heldBy: string | null; warnings: string[] }> {
  if (attempts.length === 0) throw new InvalidInputError('Nothing to start: give at least one agent.');
  const task = service.get(ref);
  if (task.merged_commit !== null)
    throw new InvalidInputError(
      `Task ${task.id} has landed already (${task.merged_commit.slice(0, 12)}); add a new task for more work.`,
    );
  const busy = sessions.list().find((s) => s.task_id === task.id && AT_WORK.has(s.state));
  if (busy !== undefined) throw new TaskStartedError(task.id, busy.name, busy.state);
  const after = service.options.tasks.dependencies(task.id);
  const waiting = service.cards.waitingFor(after);
  if (waiting.length > 0 && loadRepoConfig(task.project_root).tasks?.autoStart === false) {
    throw new InvalidInputError(
      `Task ${task.id} waits for ${waiting.map((id) => `task ${id}`).join(', ')} to land, and this repository has tasks.autoStart off: start it once they have landed.`,
    );
  }
  const scope = JSON.parse(task.scope_json) as string[];
  const warnings = await service.checkScope(
    task.project_root,
    scope,
    after,
    attempts.some((a) => a.force),
    task.id,
  );
  // Read now, so a broken decision or note file stops the start before anything is made.
  service.files.read(task.project_root, 'decisions', task.id);
  service.files.read(task.project_root, 'notes', task.id);
  const started: SessionWithProject[] = [];
  for (const attempt of attempts) {
    const session = await sessions.dispatchForTask(dispatchRequest(task, attempt), task.id);
    started.push(session);
    service.options.bus.publish(TaskSessionLinked, {
      task: service.card(task.id),
      sessionId: session.id,
      name: session.name,
      agent: session.agent,
    });
  }
  const held = sessions.heldSessions().find((h) => started.some((s) => s.id === h.id));
  return {
    task: service.card(task.id),
    sessions: started.map((s) => sessions.get(s.id) ?? s),
    heldBy: held?.reason ?? null,
    warnings,
  };
}

/** The dispatch of one attempt: the task's title and description as the prompt, in its repository. */
export function dispatchRequest(task: TaskWithProject, attempt: Attempt): z.output<typeof DispatchRequest> {
  const prompt = task.description.trim() === '' ? task.title : `${task.title}\n\n${task.description.trim()}`;
  return {
    prompt,
    cwd: task.project_root,
    agent: attempt.agent ?? DEFAULT_AGENT,
    permissionMode: attempt.permissionMode ?? DEFAULT_PERMISSION_MODE,
    options: attempt.options,
    ...(attempt.model === undefined ? {} : { model: attempt.model }),
    ...(attempt.name === undefined ? {} : { name: attempt.name }),
  };
}

/** The instructions a session started from a task gets at each start: built from what holds then. */
export function contextFor(
  service: TaskService,
  sessions: TaskSessions,
  session: SessionWithProject,
): string | undefined {
  if (session.task_id === null) return undefined;
  const task = service.options.tasks.get(session.task_id);
  if (task === undefined) return undefined;
  const card = service.cards.card(task);
  const others = sessions
    .list()
    .filter((s) => s.id !== session.id && s.project_id === session.project_id && !ENDED.has(s.state))
    .map((s) => {
      const other = s.task_id === null ? undefined : service.options.tasks.get(s.task_id);
      return {
        name: s.name,
        agent: s.agent,
        state: s.state,
        task:
          other === undefined
            ? null
            : { id: other.id, title: other.title, scope: JSON.parse(other.scope_json) as string[] },
      };
    });
  return taskInstructions({
    task: card,
    decisions: service.files.read(task.project_root, 'decisions', task.id),
    notes: service.files.read(task.project_root, 'notes', task.id),
    others,
  });
}
