/**
 * The TODO sweep: TODO and FIXME comments older than N days (by `git blame` on the base) become
 * tasks, each once across all runs (remembered by file and text, so a comment that moves with
 * its line is not filed again); the run's agent then triages the new ones.
 */
import { createHash } from 'node:crypto';
import { git } from '../../worktrees/index.js';
import { numberOption, type RoutineTemplate, type TemplateContext } from './template.js';

export interface OldTodo {
  file: string;
  line: number;
  text: string;
  committedAt: Date;
}

const MAX_TODOS = 500;

export const todoSweep: RoutineTemplate = {
  name: 'todo-sweep',
  description:
    'TODO/FIXME comments older than N days (git blame) become tasks, never the same one twice; the agent triages them',
  options: { days: 30 },
  async prepare(ctx) {
    if (ctx.tasks === undefined)
      throw new Error('the TODO sweep files tasks, and tasks are not available in this workspace');
    const days = numberOption(ctx, 'days', 30);
    const old = await oldTodos(ctx.projectRoot, ctx.now, days);
    const fresh = old.filter((todo) => !ctx.seen(todoKey(todo)));
    if (fresh.length === 0)
      return {
        nothing: `no TODO or FIXME older than ${days} days that is not already a task (${old.length} old ones in all)`,
      };
    const made: { todo: OldTodo; task: { id: string } }[] = [];
    for (const todo of fresh) {
      const task = await ctx.tasks.create(ctx.projectRoot, {
        title: `${todo.text.slice(0, 100)} (${todo.file}:${todo.line})`,
        description: `Found by the TODO sweep: ${todo.file}:${todo.line}, unchanged since ${todo.committedAt.toISOString().slice(0, 10)}.\n\n    ${todo.text}`,
        scope: [todo.file],
      });
      ctx.see(todoKey(todo));
      made.push({ todo, task });
    }
    return {
      prompt: [
        `The TODO sweep found ${made.length} TODO/FIXME comment(s) older than ${days} days and filed each as a task:`,
        ...made.map(({ todo, task }) => `- task #${task.id}: ${todo.file}:${todo.line} — ${todo.text}`),
        '',
        'Read the code around each one. Say which are still relevant, which look obsolete (the code they talk about is gone or fixed), and which are the most urgent, with a line of reasoning each. Do not change any files.',
      ].join('\n'),
    };
  },
};

export function todoKey(todo: Pick<OldTodo, 'file' | 'text'>): string {
  return `todo:${createHash('sha256').update(`${todo.file}\0${todo.text.trim()}`).digest('hex').slice(0, 32)}`;
}

/** TODO/FIXME comments at HEAD whose line was last changed more than `days` ago. */
export async function oldTodos(root: string, now: Date, days: number): Promise<OldTodo[]> {
  const grep = await git(root, ['grep', '-n', '-I', '-E', '--no-color', '\\b(TODO|FIXME)\\b', 'HEAD', '--'], {
    okExitCodes: [1],
    timeoutMs: 60_000,
  });
  const hits = new Map<string, { line: number; text: string }[]>();
  for (const raw of grep.stdout.split('\n')) {
    // HEAD:path:line:text
    const match = /^HEAD:(.+?):(\d+):(.*)$/.exec(raw);
    if (match === null) continue;
    const [, file, line, text] = match as unknown as [string, string, string, string];
    const list = hits.get(file) ?? [];
    list.push({ line: Number(line), text: text.trim() });
    hits.set(file, list);
  }
  const cutoff = now.getTime() - days * 86_400_000;
  const found: OldTodo[] = [];
  for (const [file, lines] of hits) {
    const times = await lineTimes(root, file);
    for (const { line, text } of lines) {
      const time = times.get(line);
      if (time !== undefined && time.getTime() < cutoff) found.push({ file, line, text, committedAt: time });
      if (found.length >= MAX_TODOS) return found;
    }
  }
  return found;
}

/** The commit time of each line of a file at HEAD, from `git blame --line-porcelain`. */
async function lineTimes(root: string, file: string): Promise<Map<number, Date>> {
  const blame = await git(root, ['blame', '--line-porcelain', 'HEAD', '--', file], { timeoutMs: 60_000 });
  const times = new Map<number, Date>();
  let line = 0;
  for (const raw of blame.stdout.split('\n')) {
    const header = /^[0-9a-f]{40} \d+ (\d+)/.exec(raw);
    if (header !== null) line = Number(header[1]);
    else if (raw.startsWith('committer-time '))
      times.set(line, new Date(Number(raw.slice('committer-time '.length)) * 1000));
  }
  return times;
}

export type { TemplateContext };
