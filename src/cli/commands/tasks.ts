/** `baton task …`, `baton decide`, `baton note`: thin calls to the supervisor's tasks API, printed for people or as JSON. */
import { resolve } from 'node:path';
import type { TaskBoard, TaskCard, TaskDetail, TaskEntry } from '../../api/tasks.js';
import { TASK_COLUMNS, type TaskColumnName as TaskColumn } from '../../events/task-columns.js';
import { type AgentId, type PermissionMode } from '../../events/vocabulary.js';
import type { WorkspaceEvent } from '../../events/workspace.js';
import { BatonError, InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import { followWorkspace } from '../follow.js';
import { readScriptFile } from '../script-file.js';
import { formatWorkspaceEvent } from './events.js';

export interface TaskAddFlags {
  description?: string;
  scope?: string[];
  tracker?: string;
  after?: string[];
  ready?: boolean;
  force?: boolean;
  json?: boolean;
}
export interface TaskEditFlags {
  title?: string;
  description?: string;
  /** An array of globs, or false for --no-scope. */
  scope?: string[] | false;
  tracker?: string | false;
  after?: string[];
  review?: string;
  force?: boolean;
  json?: boolean;
}
export interface TaskListFlags {
  all?: boolean;
  project?: string;
  watch?: boolean;
  json?: boolean;
}
export interface TaskStartFlags {
  agent?: AgentId;
  model?: string;
  name?: string;
  script?: string;
  permissionMode?: PermissionMode;
  force?: boolean;
  /**
   * N attempts at the task, compared with `baton attempts show` (decision 105, "Best-of and fan-out are
   * attempt groups").
   */
  bestOf?: string;
  agents?: string;
  json?: boolean;
}

const LABELS: Record<TaskColumn, string> = {
  backlog: 'Backlog',
  ready: 'Ready',
  running: 'Running',
  needs_input: 'Needs input',
  review: 'Review',
  done: 'Done',
};

export async function add(ctx: Context, title: string, opts: TaskAddFlags): Promise<void> {
  const api = await client(ctx);
  const body = {
    title,
    ...(opts.description === undefined ? {} : { description: opts.description }),
    scope: opts.scope ?? [],
    ...(opts.tracker === undefined ? {} : { tracker: opts.tracker }),
    after: (opts.after ?? []).flatMap((n) => n.split(',')).map((n) => taskNumber(n, '--after')),
    column: opts.ready === true ? ('ready' as const) : ('backlog' as const),
    force: opts.force === true,
  };
  const { task, warnings } = await suggestAfter(
    ctx,
    api.call('POST /api/tasks', { body }),
    (after) => `baton task add ${quote(title)} … --after ${after}`,
  );
  if (opts.json) return printJson(ctx, { task, warnings });
  warn(ctx, warnings);
  ctx.out.write(`Added task ${task.id}: ${task.title} (${LABELS[task.column]})\n`);
  if (task.waitingFor.length > 0)
    ctx.out.write(`  waits for: ${task.waitingFor.map((n) => `task ${n}`).join(', ')} to land\n`);
}

export async function list(ctx: Context, opts: TaskListFlags): Promise<void> {
  const api = await client(ctx);
  const query = {
    ...(opts.all === true ? { all: 'true' as const } : {}),
    ...(opts.project === undefined ? {} : { project: opts.project }),
  };
  // Taken before the board, so --watch misses no change made in between.
  const after =
    opts.watch === true
      ? (await api.call('GET /api/workspace/events', { query: { after: Number.MAX_SAFE_INTEGER, limit: 1 } }))
          .lastSeq
      : 0;
  const board = await api.call('GET /api/tasks', { query });
  if (opts.json) printJson(ctx, board);
  else ctx.out.write(renderBoard(board));
  if (opts.watch !== true) return;
  ctx.keepAlive = true;
  let last = after;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const mine = (event: WorkspaceEvent): boolean => {
    if (!event.type.startsWith('task.')) return false;
    if (board.project === null) return true;
    const data = event.data as { task?: TaskCard; project?: string };
    return (data.task?.project ?? data.project) === board.project;
  };
  await followWorkspace(
    ctx,
    api,
    () => last,
    (event) => {
      last = event.seq;
      if (!mine(event)) return;
      ctx.out.write((opts.json ? JSON.stringify(event) : formatWorkspaceEvent(event)) + '\n');
    },
    controller.signal,
  );
}

export async function show(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const detail = await api.call('GET /api/tasks/:id', { params: { id: String(taskNumber(ref, 'task')) } });
  if (opts.json) return printJson(ctx, detail);
  ctx.out.write(renderDetail(detail));
}

export async function move(
  ctx: Context,
  ref: string,
  columnText: string,
  opts: { position?: string; json?: boolean },
): Promise<void> {
  const column = columnText.toLowerCase().replace(/-/g, '_');
  if (!(TASK_COLUMNS as readonly string[]).includes(column))
    throw new InvalidInputError(
      `"${columnText}" is not a column; use one of backlog, ready, running, needs-input, review, done.`,
    );
  let position: number | undefined;
  if (opts.position !== undefined) {
    position = Number(opts.position);
    if (!Number.isInteger(position) || position < 1)
      throw new InvalidInputError(`--position takes a place from 1 (the top), got "${opts.position}".`);
  }
  const api = await client(ctx);
  const { task } = await api.call('POST /api/tasks/:id/move', {
    params: { id: String(taskNumber(ref, 'task')) },
    body: { column: column as TaskColumn, ...(position === undefined ? {} : { position: position - 1 }) },
  });
  if (opts.json) return printJson(ctx, { task });
  ctx.out.write(`Moved task ${task.id} to ${LABELS[task.column]} (place ${task.position + 1}).\n`);
}

export async function edit(ctx: Context, ref: string, opts: TaskEditFlags): Promise<void> {
  const review = opts.review?.replace(/-/g, '_');
  if (review !== undefined && !['none', 'approved', 'changes_requested'].includes(review))
    throw new InvalidInputError(
      `--review takes none, approved or changes-requested, got "${opts.review ?? ''}".`,
    );
  const after = opts.after
    ?.flatMap((n) => n.split(','))
    .filter((n) => n !== '0')
    .map((n) => taskNumber(n, '--after'));
  const body = {
    ...(opts.title === undefined ? {} : { title: opts.title }),
    ...(opts.description === undefined ? {} : { description: opts.description }),
    ...(opts.scope === undefined ? {} : { scope: opts.scope === false ? [] : opts.scope }),
    ...(opts.tracker === undefined ? {} : { tracker: opts.tracker === false ? null : opts.tracker }),
    ...(after === undefined ? {} : { after }),
    ...(review === undefined ? {} : { review: review as 'none' | 'approved' | 'changes_requested' }),
    force: opts.force === true,
  };
  const id = taskNumber(ref, 'task');
  const api = await client(ctx);
  const { task, warnings } = await suggestAfter(
    ctx,
    api.call('POST /api/tasks/:id', { params: { id: String(id) }, body }),
    (n) => `baton task edit ${id} --after ${n}`,
  );
  if (opts.json) return printJson(ctx, { task, warnings });
  warn(ctx, warnings);
  ctx.out.write(`Changed task ${task.id}: ${task.title}\n`);
}

export async function remove(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const removed = await api.call('DELETE /api/tasks/:id', {
    params: { id: String(taskNumber(ref, 'task')) },
  });
  if (opts.json) return printJson(ctx, removed);
  ctx.out.write(`Removed task ${removed.taskId}: ${removed.title}\n`);
}

export async function start(ctx: Context, ref: string, opts: TaskStartFlags): Promise<void> {
  if (opts.bestOf !== undefined || opts.agents !== undefined) return startBestOf(ctx, ref, opts);
  const options: Record<string, unknown> = {};
  if (opts.script !== undefined) {
    if (opts.agent !== undefined && opts.agent !== 'scripted')
      throw new InvalidInputError('--script is only for --agent scripted');
    options.script = readScriptFile(resolve(ctx.cwd, opts.script));
  }
  const id = taskNumber(ref, 'task');
  // As a dispatch: the agent named, the scripted one for a script, else the default (decision 185).
  const agent =
    opts.agent ??
    (opts.script !== undefined ? 'scripted' : await (await import('./attempts.js')).configuredAgent(ctx));
  const body = {
    options,
    force: opts.force === true,
    agent,
    ...(opts.model === undefined ? {} : { model: opts.model }),
    ...(opts.name === undefined ? {} : { name: opts.name }),
    ...(opts.permissionMode === undefined ? {} : { permissionMode: opts.permissionMode }),
  };
  const api = await client(ctx);
  const started = await suggestAfter(
    ctx,
    api.call('POST /api/tasks/:id/start', { params: { id: String(id) }, body }),
    (n) => `baton task edit ${id} --after ${n} && baton task start ${id}`,
  );
  if (opts.json) return printJson(ctx, started);
  warn(ctx, started.warnings);
  const { session } = started;
  ctx.out.write(
    `Started ${session.name} (${session.agent}) on task ${started.task.id}: ${started.task.title}\n`,
  );
  if (started.heldBy !== null) ctx.out.write(`  queued: it starts ${started.heldBy}, on the new base\n`);
  ctx.out.write(`  follow: baton logs ${session.name} -f\n`);
}

export async function entry(
  ctx: Context,
  kind: 'decisions' | 'notes',
  ref: string,
  text: string,
  opts: { json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const id = String(taskNumber(ref, 'task'));
  const body = { text };
  const recorded: TaskEntry =
    kind === 'decisions'
      ? await api.call('POST /api/tasks/:id/decisions', { params: { id }, body })
      : await api.call('POST /api/tasks/:id/notes', { params: { id }, body });
  if (opts.json) return printJson(ctx, recorded);
  ctx.out.write(
    `Recorded ${kind === 'decisions' ? 'a decision' : 'a note'} for task ${recorded.task}: ${recorded.file}\n`,
  );
}

export function renderBoard(board: TaskBoard): string {
  const lines: string[] = [];
  for (const { column, tasks } of board.columns) {
    lines.push(`${LABELS[column]} (${tasks.length})`);
    for (const task of tasks) lines.push(`  ${cardLine(task)}`);
  }
  return lines.join('\n') + '\n';
}

function cardLine(task: TaskCard): string {
  const parts = [`${String(task.id).padStart(3)}  ${task.title}`];
  if (task.tracker !== null) parts.push(task.trackerUrl ?? task.tracker);
  const live = task.sessions.filter((s) => !s.removed);
  if (live.length > 0)
    parts.push(`[${live.map((s) => `${s.name} ${s.state.replace(/_/g, ' ')}`).join(', ')}]`);
  if (task.waitingFor.length > 0) parts.push(`after ${task.waitingFor.map((n) => `task ${n}`).join(', ')}`);
  if (task.review !== 'none') parts.push(`review: ${task.review.replace(/_/g, ' ')}`);
  return parts.join('  ');
}

function renderDetail({ task, decisions, notes, broken }: TaskDetail): string {
  const lines = [
    `Task ${task.id}: ${task.title}`,
    `  column:   ${LABELS[task.column]}${task.columnSetBy === 'hand' ? ' (moved by hand)' : ''}`,
    `  project:  ${task.project}`,
  ];
  if (task.tracker !== null)
    lines.push(
      `  tracker:  ${task.tracker}${task.trackerUrl === null || task.trackerUrl === task.tracker ? '' : `  ${task.trackerUrl}`}`,
    );
  if (task.scope.length > 0) lines.push(`  scope:    ${task.scope.join(', ')}`);
  if (task.after.length > 0)
    lines.push(
      `  after:    ${task.after.map((n) => `task ${n}${task.waitingFor.includes(n) ? ' (not landed)' : ' (landed)'}`).join(', ')}`,
    );
  if (task.review !== 'none') lines.push(`  review:   ${task.review.replace(/_/g, ' ')}`);
  if (task.mergedCommit !== null) lines.push(`  landed:   ${task.mergedCommit.slice(0, 12)}`);
  if (task.description !== '') lines.push('', ...task.description.split('\n').map((l) => `  ${l}`));
  if (task.sessions.length > 0)
    lines.push(
      '',
      'Sessions:',
      ...task.sessions.map(
        (s) => `  ${s.name} (${s.agent}) ${s.removed ? 'removed' : s.state.replace(/_/g, ' ')}`,
      ),
    );
  for (const [title, entries] of [
    ['Decisions', decisions],
    ['Notes', notes],
  ] as const) {
    if (entries.length > 0)
      lines.push(
        '',
        `${title}:`,
        ...entries.map((e) => `  - ${e.text.replace(/\s*\n\s*/g, ' ')}  (${e.file})`),
      );
  }
  if (broken.length > 0)
    lines.push(
      '',
      `Not shown: ${broken.length === 1 ? 'one entry file cannot' : `${broken.length} entry files cannot`} be read (Baton never rewrites them; fix each by hand):`,
      ...broken.map((b) => `  ${b.file}: ${b.problem}`),
    );
  return lines.join('\n') + '\n';
}

/** On a scope overlap, prints how to run the task after the other one, then fails as the supervisor said. */
async function suggestAfter<T>(
  ctx: Context,
  call: Promise<T>,
  suggestion: (after: string) => string,
): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof BatonError && error.data.reason === 'scope_overlap')
      ctx.err.write(`To run it after the other: ${suggestion(String(error.data.after))}\n`);
    throw error;
  }
}

function warn(ctx: Context, warnings: readonly string[]): void {
  for (const warning of warnings) ctx.err.write(`warning: ${warning}\n`);
}

function taskNumber(text: string, what: string): number {
  const n = Number(text.replace(/^#/, ''));
  if (!Number.isInteger(n) || n < 1 || n > Number.MAX_SAFE_INTEGER)
    throw new InvalidInputError(
      `${what} takes a task number (as \`baton task ls\` shows it), got "${text}".`,
    );
  return n;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Best-of on a task: N sessions of it (any mix of agents), each recording the task and told its context. */
async function startBestOf(ctx: Context, ref: string, opts: TaskStartFlags): Promise<void> {
  const id = taskNumber(ref, 'task');
  const api = await client(ctx);
  const { task } = await api.call('GET /api/tasks/:id', { params: { id: String(id) } });
  if (task.mergedCommit !== null)
    throw new InvalidInputError(
      `Task ${task.id} has landed already (${task.mergedCommit.slice(0, 12)}); add a new task for more work.`,
    );
  const busy = task.sessions.find(
    (s) =>
      !s.removed &&
      ['queued', 'preparing', 'starting', 'working', 'needs_input', 'ready_for_review'].includes(s.state),
  );
  if (busy !== undefined)
    throw new InvalidInputError(
      `Task ${task.id} is already being worked on by ${busy.name} (${busy.state.replace(/_/g, ' ')}); stop or finish it first.`,
    );
  const prompt = task.description.trim() === '' ? task.title : `${task.title}\n\n${task.description.trim()}`;
  const attempts = await import('./attempts.js');
  await attempts.dispatchBestOf(
    { ...ctx, cwd: task.projectRoot },
    {
      prompt,
      taskId: String(task.id),
      ...(opts.bestOf === undefined ? {} : { bestOf: opts.bestOf }),
      ...(opts.agents === undefined ? {} : { agents: opts.agents }),
      ...(opts.agent === undefined ? {} : { agent: opts.agent }),
      ...(opts.model === undefined ? {} : { model: opts.model }),
      ...(opts.name === undefined ? {} : { name: opts.name }),
      ...(opts.script === undefined ? {} : { script: resolve(ctx.cwd, opts.script) }),
      permissionMode: opts.permissionMode ?? 'default',
      ...(opts.json === undefined ? {} : { json: opts.json }),
    },
  );
}
