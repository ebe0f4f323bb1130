/**
 * `baton attempts` (best-of groups: ls, show, pick) and `baton fanout` (start, show, ls).
 * Commander is passed in: main.ts alone loads it.
 */
import type * as Commander from 'commander';
import { agentName } from './flags.js';
import { DEFAULT_PERMISSION_MODE, PERMISSION_MODES } from '../events/vocabulary.js';
import { sessionRef } from './arguments.js';
import type { Context } from './context.js';
import type { FanoutFlags } from './commands/fanout.js';

export function addAttemptCommands(
  program: Commander.Command,
  Option: typeof Commander.Option,
  ctx: Context,
): void {
  const attempts = program
    .command('attempts')
    .description(
      'best-of groups: several attempts at one prompt (`baton dispatch --best-of 3`), compared, one picked to land',
    );
  attempts
    .command('ls')
    .alias('list')
    .description('best-of groups, newest last')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/attempts.js')).list(ctx, opts));
  attempts
    .command('show')
    .description(
      "a group's comparison: the repository's check on each attempt, diff size, files, cost, time, conflicts with other work",
    )
    .argument('<group>', 'group id (or a unique prefix)')
    .option('--no-check', 'do not run the check on attempts not checked yet')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (group: string, opts: { json?: boolean; check: boolean }) =>
      (await import('./commands/attempts.js')).show(ctx, group, opts),
    );
  attempts
    .command('pick')
    .description(
      'land the winner through the merge queue; once it has landed the other attempts are archived, their work kept (`baton restore`)',
    )
    .argument('<session>', 'the winning attempt (id, id prefix or name)', sessionRef)
    .option('-g, --group <group>', 'the group it must belong to')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, opts: { group?: string; json?: boolean }) =>
      (await import('./commands/attempts.js')).pick(ctx, ref, opts),
    );

  const fanout = program
    .command('fanout')
    .description(
      'split a list of items into batches, one session per batch; `fanout show <id>` gathers the results in one report',
    )
    .argument('<items>', 'a file with one item per line (blank lines and # comments skipped)')
    .option('--prompt <text>', 'what to do for each item (each session gets it with its batch of items)')
    .option('--batch <n>', 'items per batch', '10')
    .addOption(
      new Option(
        '-a, --agent <agent>',
        'agent to run (default: the configured one, else the one installed)',
      ).argParser(agentName),
    )
    .option('-n, --name <name>', "start of the sessions' names (default: from the prompt)")
    .option('-m, --model <model>', 'model for the agent')
    .option('-b, --base <ref>', 'branch, tag or commit to start from (default: HEAD)')
    .option('-s, --script <file>', 'script file for the scripted agent')
    .addOption(
      new Option('-p, --permission-mode <mode>', 'how tool calls are approved')
        .choices(PERMISSION_MODES)
        .default(DEFAULT_PERMISSION_MODE),
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (file: string, opts: FanoutFlags) =>
      (await import('./commands/fanout.js')).fanout(ctx, file, opts),
    );
  fanout
    .command('show')
    .description(
      "a fan-out's report (Markdown): per batch its sessions, state, items, diff stat and the agent's final message",
    )
    .argument('<id>', 'fan-out id (or a unique prefix)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (id: string, opts: { json?: boolean }) =>
      (await import('./commands/fanout.js')).show(ctx, id, withParentJson(fanout, opts)),
    );
  fanout
    .command('ls')
    .alias('list')
    .description('fan-outs, newest last')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) =>
      (await import('./commands/fanout.js')).list(ctx, withParentJson(fanout, opts)),
    );
}

/** `fanout ls --json`: commander gives `--json` to \`fanout\` itself, which has one too. */
function withParentJson(parent: Commander.Command, opts: { json?: boolean }): { json?: boolean } {
  return { ...opts, json: opts.json === true || parent.opts<{ json?: boolean }>().json === true };
}
