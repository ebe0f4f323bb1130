/**
 * `baton task …`, `baton decide` and `baton note` (decision 71, "Tasks are their own domain beside
 * sessions"). Commander is passed in: main.ts alone loads it. Each action imports its command module
 * only when run.
 */
import type * as Commander from 'commander';
import { agentName } from './flags.js';
import { PERMISSION_MODES } from '../events/vocabulary.js';
import type { Context } from './context.js';
import type * as TaskCommands from './commands/tasks.js';
import type { TaskAddFlags, TaskEditFlags, TaskListFlags, TaskStartFlags } from './commands/tasks.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const COLUMNS = 'backlog, ready, running, needs-input, review or done';

export function addTaskCommands(
  program: Commander.Command,
  Option: typeof Commander.Option,
  ctx: Context,
): void {
  const json = (): Commander.Option => new Option('--json', 'print JSON for scripts');
  const task = program
    .command('task')
    .description(
      'work items: tasks on a board, their scope, tracker reference, dependencies, decisions and notes',
    );
  const run = async (): Promise<typeof TaskCommands> => import('./commands/tasks.js');

  task
    .command('add')
    .description('add a task (to the backlog, or --ready)')
    .argument('<title>', 'what is to be done')
    .option('-d, --description <text>', 'more about it; the agent reads this too')
    .option('--scope <glob>', "files the task may change (repeatable), e.g. 'src/watcher/**'", collect)
    .option('--tracker <ref>', 'tracker reference: #432, a URL, or a key like ABC-12')
    .option('--after <task>', 'a task that must land first (repeatable)', collect)
    .option('--ready', 'put it in Ready rather than Backlog')
    .option('--force', "add it although its scope overlaps a running task's")
    .addOption(json())
    .action(async (title: string, opts: TaskAddFlags) => (await run()).add(ctx, title, opts));

  task
    .command('ls')
    .alias('list')
    .description("the board: this repository's tasks by column")
    .option('--all', 'every repository’s tasks')
    .option('--project <project>', 'this project (its name or root folder)')
    .option('-w, --watch', 'keep printing changes as they happen')
    .addOption(json())
    .action(async (opts: TaskListFlags) => (await run()).list(ctx, opts));

  task
    .command('show')
    .description('one task: its card, sessions, decisions and notes')
    .argument('<task>', 'task number')
    .addOption(json())
    .action(async (ref: string, opts: { json?: boolean }) => (await run()).show(ctx, ref, opts));

  task
    .command('move')
    .description(`move a task's card by hand (it stays there until one of its sessions changes state)`)
    .argument('<task>', 'task number')
    .argument('<column>', COLUMNS)
    .option('--position <n>', 'place in the column, 1 for the top (default: last)')
    .addOption(json())
    .action(async (ref: string, column: string, opts: { position?: string; json?: boolean }) =>
      (await run()).move(ctx, ref, column, opts),
    );

  task
    .command('edit')
    .description('change a task')
    .argument('<task>', 'task number')
    .option('--title <title>', 'a new title')
    .option('-d, --description <text>', 'a new description')
    .option('--scope <glob>', 'the new scope (repeatable; replaces the old one)', collect)
    .option('--no-scope', 'clear the scope')
    .option('--tracker <ref>', 'a new tracker reference')
    .option('--no-tracker', 'clear the tracker reference')
    .option('--after <task>', 'the new dependencies (repeatable; replaces the old ones; 0 for none)', collect)
    .option('--review <state>', 'review state: none, approved or changes-requested')
    .option('--force', "accept a scope that overlaps a running task's")
    .addOption(json())
    .action(async (ref: string, opts: TaskEditFlags) => (await run()).edit(ctx, ref, opts));

  task
    .command('rm')
    .description('remove a task (its sessions stay)')
    .argument('<task>', 'task number')
    .addOption(json())
    .action(async (ref: string, opts: { json?: boolean }) => (await run()).remove(ctx, ref, opts));

  task
    .command('start')
    .description(
      'start a session on the task: it is told the task, its scope, decisions and notes, and the other sessions',
    )
    .argument('<task>', 'task number')
    .addOption(new Option('-a, --agent <agent>', 'agent to run').argParser(agentName))
    .option('-m, --model <model>', 'model for the agent')
    .option('-n, --name <name>', 'session name (default: from the title)')
    .option('-s, --script <file>', 'script file for the scripted agent')
    .addOption(
      new Option('-p, --permission-mode <mode>', 'how tool calls are approved').choices(PERMISSION_MODES),
    )
    .option('--force', "start although its scope overlaps a running task's")
    .option(
      '--best-of <n>',
      'start n attempts at the task, compared with `baton attempts show` and one picked to land',
    )
    .option(
      '--agents <list>',
      'with --best-of: the agents, one per attempt (claude,codex,claude) or one for all',
    )
    .addOption(json())
    .action(async (ref: string, opts: TaskStartFlags) => (await run()).start(ctx, ref, opts));

  program
    .command('decide')
    .description("record a decision for a task (a Markdown file in the repository's .baton/decisions/)")
    .argument('<task>', 'task number')
    .argument('<text...>', 'the decision and why')
    .addOption(json())
    .action(async (ref: string, text: string[], opts: { json?: boolean }) =>
      (await run()).entry(ctx, 'decisions', ref, text.join(' '), opts),
    );

  program
    .command('note')
    .description("record a note for a task (a Markdown file in the repository's .baton/notes/)")
    .argument('<task>', 'task number')
    .argument('<text...>', 'the note')
    .addOption(json())
    .action(async (ref: string, text: string[], opts: { json?: boolean }) =>
      (await run()).entry(ctx, 'notes', ref, text.join(' '), opts),
    );
}
