/** `baton routine …`: scheduled and triggered agents. Commander is passed in (main.ts alone loads it). */
import type * as Commander from 'commander';
import type { Context } from './context.js';
import type { AddFlags } from './commands/routines.js';
import type * as RoutineCommands from './commands/routines.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addRoutineCommands(
  program: Commander.Command,
  Option: typeof Commander.Option,
  ctx: Context,
): void {
  const routine = program
    .command('routine')
    .description('scheduled and triggered agents that run as ordinary sessions with the workspace brief');
  const json = (): Commander.Option => new Option('--json', 'print JSON for scripts');
  const load = (): Promise<typeof RoutineCommands> => import('./commands/routines.js');

  routine
    .command('add')
    .description(
      'add a routine of this repository: a schedule (--cron, --tz) or a trigger (--on), and a template, prompt or prompt file',
    )
    .argument('<name>', 'its name (letters, digits, . _ -)')
    .option('--cron <expression>', 'when it runs: five cron fields, e.g. "0 9 * * 1" (Mondays at 09:00)')
    .option('--tz <zone>', 'the time zone of --cron, e.g. Europe/Berlin (default: this machine’s)')
    .addOption(
      new Option('--on <trigger>', 'run on an event instead of a schedule').choices([
        'tag',
        'session.completed',
        'merge.landed',
        'task.moved',
        'http',
      ]),
    )
    .option(
      '--agent <agent>',
      'claude, codex or scripted (default: the one set with baton config set agent, else the one installed)',
    )
    .option('--model <model>', "the agent's model")
    .option('--template <name>', 'a template Baton ships (baton routine templates)')
    .option('--prompt <text>', 'what the agent is asked')
    .option('--prompt-file <file>', 'a Markdown file in the repository, read at every run')
    .option('--option <key=value>', "a template's setting, e.g. days=30 (repeatable)", collect)
    .option('-s, --script <file>', 'script file for --agent scripted (the demo and tests)')
    .option('--no-catch-up', 'record a run missed while Baton was stopped instead of running it on return')
    .option('--replace', 'redefine a routine of that name')
    .addOption(json())
    .action(async (name: string, flags: AddFlags) => (await load()).add(ctx, name, flags));
  routine
    .command('ls')
    .description('every routine: when, next run, last run')
    .addOption(json())
    .action(async (flags: { json?: boolean }) => (await load()).ls(ctx, flags));
  routine
    .command('show')
    .description('one routine: its definition, next run, trigger token and latest runs')
    .argument('<name>')
    .addOption(json())
    .action(async (name: string, flags: { json?: boolean }) => (await load()).show(ctx, name, flags));
  routine
    .command('history')
    .description("a routine's runs: outcome, cause, session, cost")
    .argument('<name>')
    .option('-n, --limit <n>', 'how many runs, newest first', '50')
    .addOption(json())
    .action(async (name: string, flags: { json?: boolean; limit?: string }) =>
      (await load()).history(ctx, name, flags),
    );
  routine
    .command('run')
    .description('run a routine now')
    .argument('<name>')
    .option('--now', 'start the run now (required)')
    .addOption(json())
    .action(async (name: string, flags: { now?: boolean; json?: boolean }) =>
      (await load()).run(ctx, name, flags),
    );
  for (const [command, action, description] of [
    ['dismiss', 'dismiss', "dismiss a run's findings: the run's session is archived (its work kept)"],
    ['file', 'task', "file a run's findings as a backlog task, then archive the run's session"],
  ] as const)
    routine
      .command(command)
      .description(description)
      .argument('<name>')
      .option('--run <n>', "which run (default: the routine's latest with findings)")
      .addOption(json())
      .action(async (name: string, flags: { run?: string; json?: boolean }) =>
        (await load()).triage(ctx, name, action, flags),
      );
  routine
    .command('pause')
    .description('no scheduled or triggered runs until resumed')
    .argument('<name>')
    .addOption(json())
    .action(async (name: string, flags: { json?: boolean }) =>
      (await load()).setPaused(ctx, name, true, flags),
    );
  routine
    .command('resume')
    .description('resume a paused routine; its schedule starts again from now')
    .argument('<name>')
    .addOption(json())
    .action(async (name: string, flags: { json?: boolean }) =>
      (await load()).setPaused(ctx, name, false, flags),
    );
  routine
    .command('rm')
    .description('remove a routine added from the command line')
    .argument('<name>')
    .addOption(json())
    .action(async (name: string, flags: { json?: boolean }) => (await load()).rm(ctx, name, flags));
  routine
    .command('templates')
    .description('the templates Baton ships')
    .addOption(json())
    .action(async (flags: { json?: boolean }) => (await load()).templates(ctx, flags));
}
