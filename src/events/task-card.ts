/**
 * A task as the board shows it (decision 71, "Tasks are their own domain beside sessions"): what
 * `task.*` workspace events carry, whole, so an open page or `baton task ls --watch` updates a card
 * without asking the supervisor again.
 */
import { z } from 'zod';
import { SessionState } from './index.js';

import { TASK_COLUMNS } from './task-columns.js';

export { TASK_COLUMNS } from './task-columns.js';
export const TaskColumn = z.enum(TASK_COLUMNS);
export type TaskColumn = z.infer<typeof TaskColumn>;

/** Who put the card in its column: a person, a linked session's state, or its work landing (decision 72). */
export const ColumnSetBy = z.enum(['hand', 'session', 'merge']);
export type ColumnSetBy = z.infer<typeof ColumnSetBy>;

export const TASK_REVIEW_STATES = ['none', 'approved', 'changes_requested'] as const;
export const TaskReview = z.enum(TASK_REVIEW_STATES);

export const TaskSession = z.object({
  id: z.string(),
  name: z.string(),
  agent: z.string(),
  state: SessionState,
  removed: z.boolean(),
});

export const TaskCard = z.object({
  id: z.number().int().positive(),
  project: z.string(),
  projectRoot: z.string(),
  title: z.string(),
  description: z.string(),
  scope: z.array(z.string()),
  /** As given: `#432`, a URL, or a key like `ABC-12`. */
  tracker: z.string().nullable(),
  /** The reference as a web address: itself when a URL, else from the repository's `tasks.trackerUrl`. */
  trackerUrl: z.string().nullable(),
  column: TaskColumn,
  columnSetBy: ColumnSetBy,
  /** 0-based place inside its column. */
  position: z.number().int().nonnegative(),
  /** Tasks that must land first. */
  after: z.array(z.number().int().positive()),
  /** Those of them that have not landed yet. */
  waitingFor: z.array(z.number().int().positive()),
  review: TaskReview,
  sessions: z.array(TaskSession),
  /** The base's commit when the task's work landed. */
  mergedCommit: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TaskCard = z.infer<typeof TaskCard>;
