/** Tasks: thin calls to the tasks domain. */
import type { TASKS } from '../../api/tasks.js';
import type { AgentChoice } from '../../doctor/index.js';
import { startTaskSessions, type TaskService, type TaskSessions } from '../../tasks/index.js';
import { InternalError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';

export function taskHandlers(
  tasks: TaskService,
  sessions: TaskSessions,
  /** The agent of a start that names none: the same as a dispatch's (decision 185). */
  chooseAgent?: () => AgentChoice,
): Handlers<typeof TASKS> {
  return {
    'GET /api/tasks': ({ query, cwd }) => tasks.boardAnswer(query, cwd),
    'POST /api/tasks': ({ body, cwd }) => tasks.add(body, cwd),
    'GET /api/tasks/:id': ({ params }) => tasks.detail(params.id),
    'POST /api/tasks/:id': ({ params, body }) => tasks.edit(params.id, body),
    'DELETE /api/tasks/:id': ({ params }) => tasks.remove(params.id),
    'POST /api/tasks/:id/move': ({ params, body }) => tasks.place(params.id, body),
    'POST /api/tasks/:id/start': async ({ params, body }) => {
      const agent = body.agent ?? chooseAgent?.().agent;
      const started = await startTaskSessions(tasks, sessions, params.id, [
        { ...body, ...(agent === undefined ? {} : { agent }) },
      ]);
      const session = started.sessions[0];
      if (session === undefined) throw new InternalError('a start made no session');
      return {
        task: started.task,
        session: sessions.view(session),
        heldBy: started.heldBy,
        warnings: started.warnings,
      };
    },
    'POST /api/tasks/:id/decisions': ({ params, body }) => tasks.entry(params.id, 'decisions', body.text),
    'POST /api/tasks/:id/notes': ({ params, body }) => tasks.entry(params.id, 'notes', body.text),
  };
}
