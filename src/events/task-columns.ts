/** The board's columns, left to right (zod-free, for the CLI and the page). */
export const TASK_COLUMNS = ['backlog', 'ready', 'running', 'needs_input', 'review', 'done'] as const;
export type TaskColumnName = (typeof TASK_COLUMNS)[number];
