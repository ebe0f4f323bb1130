/** Tasks (src/tasks): each event carries the whole card, so a page updates without asking again. */
import { z } from 'zod';
import { ColumnSetBy, TaskCard, TaskColumn } from '../task-card.js';
import { defineWorkspaceEvent } from './define.js';

export const TaskAdded = defineWorkspaceEvent('task.added', z.object({ task: TaskCard }));
export const TaskEdited = defineWorkspaceEvent(
  'task.edited',
  z.object({ task: TaskCard, fields: z.array(z.string()) }),
);
export const TaskMoved = defineWorkspaceEvent(
  'task.moved',
  z.object({ task: TaskCard, from: TaskColumn, to: TaskColumn, by: ColumnSetBy }),
);
export const TaskRemoved = defineWorkspaceEvent(
  'task.removed',
  z.object({ taskId: z.number().int(), project: z.string(), title: z.string() }),
);
export const TaskSessionLinked = defineWorkspaceEvent(
  'task.session_linked',
  z.object({ task: TaskCard, sessionId: z.string(), name: z.string(), agent: z.string() }),
);
const taskEntry = z.object({
  taskId: z.number().int(),
  project: z.string(),
  title: z.string(),
  file: z.string(),
  text: z.string(),
});
export const TaskDecided = defineWorkspaceEvent('task.decided', taskEntry);
export const TaskNoted = defineWorkspaceEvent('task.noted', taskEntry);
/**
 * Another machine's change to a shared repository's tasks reached this machine's board (decision
 * 143): the page reads the board again. Its own `task.*` event comes relayed; this one is never
 * relayed.
 */
export const TaskSynced = defineWorkspaceEvent(
  'task.synced',
  z.object({ project: z.string(), changed: z.array(z.number().int()), removed: z.array(z.number().int()) }),
);
