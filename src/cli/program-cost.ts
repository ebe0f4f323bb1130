/** The cost and watchdog commands: cost, budget (set, ls, rm), alerts, watch. */
import type * as Commander from 'commander';
import type { Context } from './context.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addCostCommands(
  program: Commander.Command,
  Option: typeof Commander.Option,
  ctx: Context,
): void {
  program
    .command('cost')
    .description(
      'tokens and cost by session, task, agent or day; burn rate, budgets and the agents’ subscription windows',
    )
    .addOption(
      new Option('--by <grouping>', 'sum by').choices(['session', 'task', 'agent', 'day']).default('session'),
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { by?: string; json?: boolean }) =>
      (await import('./commands/cost.js')).cost(ctx, opts),
    );

  const budget = program
    .command('budget')
    .description(
      'spending limits: a soft limit alerts, the hard limit pauses the session (a reply or a raised budget resumes it)',
    );
  budget
    .command('set')
    .description('set budgets, e.g. --session 2usd --day 40usd --window 5h:200usd')
    .option('--session <amount>', 'each session’s limit (2usd, $2)')
    .option('--day <amount>', 'all sessions today')
    .option(
      '--window <duration:amount>',
      'all sessions in a rolling window, e.g. 5h:200usd (repeatable)',
      collect,
    )
    .option('--warn-at <share>', 'the soft limit as a share of each limit set here', '80%')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(
      async (opts: { session?: string; day?: string; window?: string[]; warnAt?: string; json?: boolean }) =>
        (await import('./commands/cost.js')).budgetSet(ctx, opts),
    );
  budget
    .command('ls')
    .description('the budgets and where each stands')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/cost.js')).budgetList(ctx, opts));
  budget
    .command('rm')
    .description('remove a budget: session, day or window:5h')
    .argument('<scope>', 'session, day or window:<duration>')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (scope: string, opts: { json?: boolean }) =>
      (await import('./commands/cost.js')).budgetRemove(ctx, scope, opts),
    );

  program
    .command('alerts')
    .description(
      'the watchdog’s open alerts with their evidence (loops, budgets, no progress, out-of-scope edits, …)',
    )
    .option('--all', 'acknowledged alerts too')
    .option('--ack <id>', 'acknowledge an alert (a paused session’s budget alert re-arms)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { all?: boolean; ack?: string; json?: boolean }) =>
      (await import('./commands/cost.js')).alerts(ctx, opts),
    );

  program
    .command('watch')
    .description('alerts, budget changes and sessions needing you, as they happen')
    .option('--all', 'every workspace event')
    .addOption(new Option('--json', 'one JSON event per line'))
    .action(async (opts: { all?: boolean; json?: boolean }) =>
      (await import('./commands/cost.js')).watch(ctx, opts),
    );
}
