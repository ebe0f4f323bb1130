/**
 * Tasks (decision 71, "Tasks are their own domain beside sessions"): the board's cards, their decisions
 * and notes, and starting sessions from them. Operations are in `src/tasks`.
 */
import { z } from 'zod';
import { TASK_COLUMNS, TaskCard, TaskColumn, TaskReview } from '../events/task-card.js';
import { endpoint, type Table } from './endpoint.js';
import { AgentName, PermissionModeSchema, SessionView } from './index.js';

export { TaskCard, TaskColumn } from '../events/task-card.js';

const taskId = z.number().int().positive();
const title = z.string().trim().min(1, 'the title is empty').max(500);
const description = z.string().max(20_000);
const scope = z
  .array(z.string().max(500))
  .max(50)
  .describe('Globs of the files the task may change, relative to the repository root');
const tracker = z.string().max(2000).describe('#432, an http(s) address, or a key like ABC-12');
const force = z.boolean().default(false).describe('Go ahead although the scope overlaps a running task’s');
const project = z
  .string()
  .min(1)
  .optional()
  .describe('Project root or name (default: the repository of the caller’s folder)');

export const TaskAddRequest = z
  .object({
    title,
    description: description.default(''),
    scope: scope.default([]),
    tracker: tracker.optional(),
    after: z.array(taskId).max(50).default([]).describe('Tasks that must land first'),
    column: z.enum(['backlog', 'ready']).default('backlog'),
    project,
    force,
  })
  .strict();

export const TaskEditRequest = z
  .object({
    title: title.optional(),
    description: description.optional(),
    scope: scope.optional(),
    tracker: tracker.nullable().optional().describe('null clears it'),
    after: z.array(taskId).max(50).optional().describe('Replaces the dependencies'),
    review: TaskReview.optional(),
    force,
  })
  .strict();

export const TaskMoveRequest = z
  .object({
    column: TaskColumn,
    position: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('0-based place inside the column (default: last)'),
  })
  .strict();

export const TaskStartRequest = z
  .object({
    agent: AgentName.optional(),
    model: z.string().min(1).max(200).optional(),
    permissionMode: PermissionModeSchema.optional(),
    options: z.record(z.string(), z.unknown()).default({}),
    name: z.string().optional(),
    force,
  })
  .strict();

export const TaskEntryRequest = z
  .object({ text: z.string().trim().min(1, 'the text is empty').max(20_000) })
  .strict();

export const TaskEntry = z.object({
  kind: z.enum(['decisions', 'notes']),
  file: z.string(),
  task: taskId,
  date: z.string(),
  text: z.string(),
});
export type TaskEntry = z.infer<typeof TaskEntry>;

export const TaskChanged = z.object({
  task: TaskCard,
  warnings: z.array(z.string()).describe('Scope globs that match no file, overlaps let through with force'),
});
export const TaskDetail = z.object({
  task: TaskCard,
  decisions: z.array(TaskEntry),
  notes: z.array(TaskEntry),
  /** Entry files that cannot be read (the task's, or named for no task), each with what is wrong. */
  broken: z.array(z.object({ file: z.string(), problem: z.string() })),
});
export type TaskDetail = z.infer<typeof TaskDetail>;
export const TaskBoard = z.object({
  /** The project shown, or null for every project. */
  project: z.string().nullable(),
  columns: z
    .array(z.object({ column: TaskColumn, tasks: z.array(TaskCard) }))
    .describe(`Always the six columns, in order: ${TASK_COLUMNS.join(', ')}`),
  /**
   * How many decisions and notes each task has in `.baton/` (tasks with none are left out; a repository
   * whose files cannot be read gives none).
   */
  entries: z
    .record(z.string(), z.object({ decisions: z.number().int(), notes: z.number().int() }))
    .default({}),
});
export type TaskBoard = z.infer<typeof TaskBoard>;
export const TaskBoardQuery = z.object({
  project,
  all: z.enum(['true', 'false']).optional().describe('Every project’s tasks'),
});
export const TaskStarted = z.object({
  task: TaskCard,
  session: SessionView,
  /** Why the session waits, queued, instead of starting (its prerequisites have not landed). */
  heldBy: z.string().nullable(),
  warnings: z.array(z.string()),
});
export type TaskStarted = z.infer<typeof TaskStarted>;
export const TaskRemovedView = z.object({ taskId, title: z.string() });

export const TASKS = {
  'GET /api/tasks': endpoint({
    summary: 'The board: tasks in their six columns, in order',
    query: TaskBoardQuery,
    response: TaskBoard,
  }),
  'POST /api/tasks': endpoint({
    summary: 'Add a task (refused with `scope_overlap` when its scope meets a running task’s, unless force)',
    body: TaskAddRequest,
    response: TaskChanged,
    status: 201,
  }),
  'GET /api/tasks/:id': endpoint({
    summary: 'One task with its decisions and notes (read from .baton/)',
    response: TaskDetail,
  }),
  'POST /api/tasks/:id': endpoint({ summary: 'Edit a task', body: TaskEditRequest, response: TaskChanged }),
  'DELETE /api/tasks/:id': endpoint({
    summary: 'Remove a task no other task waits for',
    response: TaskRemovedView,
  }),
  'POST /api/tasks/:id/move': endpoint({
    summary: 'Move the card to a column and place (it stays until a linked session changes state)',
    body: TaskMoveRequest,
    response: TaskChanged,
  }),
  'POST /api/tasks/:id/start': endpoint({
    summary: 'Start a session on the task, told its context; held queued until its prerequisites land',
    body: TaskStartRequest,
    response: TaskStarted,
    status: 201,
  }),
  'POST /api/tasks/:id/decisions': endpoint({
    summary: 'Record a decision (a file in .baton/decisions/)',
    body: TaskEntryRequest,
    response: TaskEntry,
    status: 201,
  }),
  'POST /api/tasks/:id/notes': endpoint({
    summary: 'Record a note (a file in .baton/notes/)',
    body: TaskEntryRequest,
    response: TaskEntry,
    status: 201,
  }),
} satisfies Table;
