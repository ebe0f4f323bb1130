/**
 * The `baton` command line. Holds the one top-level catch and the one process.exit; commands are
 * lazily imported functions taking a typed options object.
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import { batonHome } from '../shared/paths.js';
import { sessionRef } from './arguments.js';
import type { Context } from './context.js';
import { report } from './error-report.js';
import { fastCommand } from './fast.js';
import { guardTerminal } from './terminal.js';
import { addWorkspaceCommands } from './program-workspace.js';
import { addRoutineCommands } from './program-routines.js';
import { addContextCommands } from './program-context.js';
import { DEFAULT_PERMISSION_MODE, PERMISSION_MODES } from '../events/vocabulary.js';
import type { LogsFlags } from './commands/stream.js';
import { agentName, type DispatchFlags } from './flags.js';

export async function main(argv: string[]): Promise<void> {
  // Since Node's own start: Node, bin/baton and this module's imports (decision 221).
  const entered = performance.now();
  const ctx: Context = {
    home: batonHome(),
    cwd: process.cwd(),
    env: process.env,
    out: process.stdout,
    err: process.stderr,
  };
  // An agent's text is shown on the terminal, not obeyed (decision 400); the board draws its own screen.
  if (argv.length > 2) {
    guardTerminal(process.stdout);
    guardTerminal(process.stderr);
  }
  // `baton logs x | head` closes the pipe early; that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  try {
    const fast = fastCommand(ctx, argv.slice(2));
    // A bare `baton` is the terminal board (or, off a terminal, the list `baton ls` prints).
    if (argv.length === 2) await (await import('../board/index.js')).openBoard(ctx);
    else if (fast !== undefined) await fast();
    else await buildProgram(ctx, argv.includes('--json')).parseAsync(argv);
    process.exitCode ??= 0;
  } catch (error) {
    process.exitCode = report(error, ctx, argv.includes('--json'));
  }
  if (process.exitCode === undefined || ctx.keepAlive) return;
  timed(argv, entered);
  // Output to a pipe is written asynchronously once the pipe is full: exiting now would drop
  // what is still queued. Then open sockets or timers of a finished command must not keep the CLI alive.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  setImmediate(() => process.exit(process.exitCode));
}

/**
 * With BATON_TIMINGS naming a file, one line of this command's own cost is appended to it: the
 * time to reach main (Node's start and the CLI's loading) and the command's run (its modules,
 * the supervisor's answer, the output). The bench sets it to split the CLI's cost from Node's.
 */
function timed(argv: string[], entered: number): void {
  const file = process.env.BATON_TIMINGS;
  if (file === undefined || file === '') return;
  try {
    const line = { command: argv.slice(2, 3).join(' '), boot: entered, run: performance.now() - entered };
    appendFileSync(file, JSON.stringify(line) + '\n');
  } catch {
    // A timing that cannot be written is no reason to fail the command.
  }
}

/** Resolves once everything written so far has been handed to the OS (or the stream has failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) resolve();
    else stream.write('', () => resolve());
  });
}

function buildProgram(ctx: Context, jsonErrors: boolean): Commander.Command {
  // Loaded only here: the read-only commands of fast.ts run without it. Its CommonJS build is
  // required directly, since the ESM entry makes Node scan it with cjs-module-lexer (~2 ms, 2 MB).
  const { Command, Option } = createRequire(import.meta.url)('commander') as typeof Commander;
  const program = new Command('baton')
    .description('Run many AI coding agents in parallel on one repository, and keep them in hand.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({
      // With --json the error is printed once, as JSON, by report().
      writeErr: (s) =>
        jsonErrors && s.startsWith('error:')
          ? undefined
          : ctx.err.write(s.startsWith('error:') ? `baton: ${s.slice(7)}` : s),
    })
    .showSuggestionAfterError();

  const json = new Option('--json', 'print JSON for scripts');

  program
    .command('dispatch')
    .description('start an agent session on its own branch and worktree')
    .argument('<prompt>', 'what the agent should do')
    .option('-n, --name <name>', 'session name (default: from the prompt)')
    .addOption(
      new Option(
        '-a, --agent <agent>',
        'agent to run (default: the one set with baton config set agent, else the one installed)',
      ).argParser(agentName),
    )
    .option('-m, --model <model>', 'model for the agent')
    .option('-b, --base <ref>', 'branch, tag or commit to start from (default: HEAD)')
    .option('-s, --script <file>', 'script file for the scripted agent')
    .option('--branch <branch>', 'continue this existing branch in a new worktree')
    .option('--in-place', 'no worktree: work in the main checkout itself (one in-place session at a time)')
    .option(
      '--on <machine>',
      "where it runs in a shared workspace: a machine's name, or any (here while a slot is free, else a machine with one)",
    )
    .option(
      '--carry-changes',
      "bring the main checkout's uncommitted changes (tracked and untracked) into the new worktree",
    )
    .addOption(
      new Option('-p, --permission-mode <mode>', 'how tool calls are approved')
        .choices(PERMISSION_MODES)
        .default(DEFAULT_PERMISSION_MODE),
    )
    .option('-w, --wait', "then block until the session needs input or ends, with `baton wait`'s exit codes")
    .option(
      '--best-of <n>',
      'start n attempts at the prompt, compared with `baton attempts show` (any mix of agents with --agents)',
    )
    .option(
      '--agents <list>',
      'with --best-of: the agents, one per attempt (claude,codex,claude) or one for all',
    )
    .option('--force', "start even when the agent's subscription window is used up or projected to run out")
    .addOption(json)
    .action(async (prompt: string, opts: DispatchFlags) =>
      opts.bestOf !== undefined || opts.agents !== undefined
        ? (await import('./commands/attempts.js')).dispatchBestOf(ctx, { prompt, ...opts })
        : (await import('./commands/sessions.js')).dispatch(ctx, { prompt, ...opts }),
    );

  program
    .command('ls')
    .alias('list')
    .description('sessions grouped by state')
    .option('--here', 'only sessions of the repository in the current folder')
    .option(
      '-s, --state <states>',
      'only sessions in these states, comma-separated (e.g. needs_input,working)',
    )
    .option('--all', 'landed and removed sessions too (their transcripts and handoffs stay readable)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean; here?: boolean; state?: string; all?: boolean }) =>
      (await import('./commands/sessions.js')).list(ctx, opts),
    );

  program
    .command('peek')
    .description('what a session is doing right now')
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, opts: { json?: boolean }) =>
      (await import('./commands/sessions.js')).peek(ctx, ref, opts),
    );

  program
    .command('doctor')
    .description('is this machine ready: Node, git, the supervisor, each agent and its sign-in, limits, disk')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/doctor.js')).doctor(ctx, opts));

  program
    .command('agents')
    .description(
      'every agent Baton can run (its own, and Agent Client Protocol agents: built-in and agents.<name> in config.json), installed or not, and what each supports',
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/agents.js')).agents(ctx, opts));

  const config = program
    .command('config')
    .description(
      "Baton's own settings in $BATON_HOME/config.json: agent (what dispatch runs by default), maxConcurrent, notifications.*, …",
    );
  config
    .command('get')
    .description('print a setting, or all of them')
    .argument('[key]', 'e.g. agent, maxConcurrent, notifications.desktop')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (key: string | undefined, opts: { json?: boolean }) =>
      (await import('./commands/config.js')).configGet(ctx, key, opts),
    );
  config
    .command('set')
    .description('set a setting (checked before it is saved), e.g. baton config set agent claude')
    .argument('<key>', 'e.g. agent, maxConcurrent, notifications.desktop')
    .argument('<value>', 'a string, number, true/false or JSON')
    .action(async (key: string, value: string) =>
      (await import('./commands/config.js')).configSet(ctx, key, value),
    );
  config
    .command('unset')
    .description('remove a setting, back to its default')
    .argument('<key>')
    .action(async (key: string) => (await import('./commands/config.js')).configUnset(ctx, key));

  program
    .command('du')
    .description('disk per worktree and in total, owned against shared')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/archive.js')).du(ctx, opts));

  program
    .command('gc')
    .description(
      "archive this repository's idle worktrees by its cleanup policy (uncommitted work snapshotted first)",
    )
    .option('--dry-run', 'only say what would be archived')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { dryRun?: boolean; json?: boolean }) =>
      (await import('./commands/archive.js')).gc(ctx, opts),
    );

  program
    .command('snapshots')
    .description("archived work of this repository's removed sessions")
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/archive.js')).snapshots(ctx, opts));

  program
    .command('trust')
    .description(
      "show what this repository's .baton/config.json runs (setup, teardown, merge check, routines, env), then trust exactly that",
    )
    .option('-y, --yes', 'trust without asking (for scripts)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { yes?: boolean; json?: boolean }) =>
      (await import('./commands/trust.js')).trust(ctx, opts),
    );

  program
    .command('checkpoints')
    .description("a session's checkpoints: its work kept before a command that discards uncommitted work ran")
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, opts: { json?: boolean }) =>
      (await import('./commands/archive.js')).checkpoints(ctx, ref, opts),
    );

  program
    .command('restore')
    .description(
      "bring a snapshot back as a worktree on baton/<name>, its uncommitted work as it was; or, given a session and one of its checkpoints, write that checkpoint's files over the session's worktree",
    )
    .argument('<snapshot-or-session>', 'snapshot name (see baton snapshots), or a session with a checkpoint')
    .argument('[checkpoint]', "the session's checkpoint (see baton checkpoints <session>)")
    .option('--as <name>', 'restore a snapshot under another name')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (name: string, checkpoint: string | undefined, opts: { as?: string; json?: boolean }) =>
      checkpoint === undefined
        ? (await import('./commands/archive.js')).restore(ctx, name, opts)
        : (await import('./commands/archive.js')).restoreCheckpoint(ctx, sessionRef(name), checkpoint, opts),
    );

  program
    .command('env')
    .description("a session's leased ports, variables, setup log and disk use")
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, opts: { json?: boolean }) =>
      (await import('./commands/env.js')).env(ctx, ref, opts),
    );

  program
    .command('diff')
    .description("a session's work against its base: committed, uncommitted and new files")
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .option('--stat', 'files changed with line counts, not the patch')
    .addOption(
      new Option('--json', 'print JSON for scripts: the files, counts and (without --stat) the patch'),
    )
    .action(async (ref: string, opts: { stat?: boolean; json?: boolean }) =>
      (await import('./commands/diff.js')).diff(ctx, ref, opts),
    );

  program
    .command('logs')
    .description("a session's events")
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .option('-f, --follow', 'keep printing new events')
    .option('--after <seq>', 'only events after this sequence number', '0')
    .option('-n, --lines <n>', 'only the last n events')
    .option('--full', 'messages, commands and tool output whole, not cut to one line')
    .addOption(new Option('--json', 'one JSON event per line'))
    .action(async (ref: string, opts: LogsFlags) =>
      (await import('./commands/stream.js')).logs(ctx, ref, opts),
    );

  program
    .command('path')
    .description('print a session\'s worktree folder, for cd "$(baton path flaky)"')
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .action(async (ref: string) => (await import('./commands/sessions.js')).path(ctx, ref));

  program
    .command('events')
    .description(
      "what happened across the workspace: sessions dispatched, changing state, pinned, removed; in a shared workspace the other machines' events too, marked [machine]",
    )
    .option('-f, --follow', 'keep printing new events')
    .option('--after <seq>', 'only events after this sequence number', '0')
    .addOption(new Option('--json', 'one JSON event per line'))
    .action(async (opts: { follow?: boolean; json?: boolean; after: string }) =>
      (await import('./commands/events.js')).events(ctx, opts),
    );

  program
    .command('attach')
    .description('follow a session live and type replies; Ctrl-C detaches (the session goes on)')
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .option('--all', 'replay the whole history first, not only the last 20 events')
    .option('--no-bell', 'no terminal bell when the session needs input')
    .action(async (ref: string, opts: { all?: boolean; bell?: boolean }) =>
      (await import('./commands/stream.js')).attach(ctx, ref, opts),
    );

  program
    .command('wait')
    .description(
      'block until each session needs input or has ended; the exit code says which (0 ready or done, 10 needs input, 11 failed, 12 stopped, 13 removed, 124 timed out)',
    )
    .argument('<session...>', 'ids, id prefixes or names')
    .option('--any', 'return as soon as one of them settles')
    .option('-t, --timeout <seconds>', 'give up after this long (exit 124)')
    .addOption(new Option('--json', "print each session's outcome as JSON"))
    .action(async (refs: string[], opts: { any?: boolean; timeout?: string; json?: boolean }) =>
      (await import('./commands/wait.js')).wait(
        ctx,
        refs.map((r) => sessionRef(r)),
        opts,
      ),
    );

  program
    .command('reply')
    .description(
      'answer a question or send a follow-up message; a stopped or failed session is resumed to take it',
    )
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .argument('<text...>', 'the reply')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, text: string[], opts: { json?: boolean }) =>
      (await import('./commands/sessions.js')).reply(ctx, ref, text.join(' '), opts),
    );

  for (const [name, decision] of [
    ['approve', 'allow'],
    ['deny', 'deny'],
  ] as const) {
    const command = program
      .command(name)
      .description(`${name} the pending tool call`)
      .argument('<session>', 'id, id prefix or name', sessionRef)
      .option('-r, --reason <text>', 'why (the agent is told)')
      .option('--id <request>', 'the approval request id, when several are pending')
      .addOption(new Option('--json', 'print JSON for scripts'));
    if (decision === 'allow')
      command.option(
        '--always',
        'and from now on approve calls like it in this repository without asking (an allow rule; the gate still wins)',
      );
    command.action(
      async (ref: string, opts: { reason?: string; id?: string; json?: boolean; always?: boolean }) =>
        (await import('./commands/sessions.js')).decide(ctx, ref, decision, opts),
    );
  }

  program
    .command('stop')
    .description('stop agents; `respawn` resumes them later, `reply` too')
    .argument('[session...]', 'ids, id prefixes or names')
    .option('--all', 'every session that is queued, working or waiting for input')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (refs: string[], opts: { all?: boolean; json?: boolean }) =>
      (await import('./commands/bulk.js')).stop(
        ctx,
        refs.map((r) => sessionRef(r)),
        opts,
      ),
    );

  const simple: [string, string, 'interrupt' | 'done'][] = [
    ['interrupt', 'end the current turn; the session stays open for replies', 'interrupt'],
    ['done', 'mark the work completed', 'done'],
  ];
  for (const [name, description, action] of simple) {
    program
      .command(name)
      .description(description)
      .argument('<session>', 'id, id prefix or name', sessionRef)
      .addOption(new Option('--json', 'print JSON for scripts'))
      .action(async (ref: string, opts: { json?: boolean }) =>
        (await import('./commands/sessions.js')).simpleAction(ctx, action, ref, opts),
      );
  }

  program
    .command('respawn')
    .description('restart a failed or stopped session in its worktree (resuming the conversation)')
    .argument('[session]', 'id, id prefix or name', sessionRef)
    .option('--all', 'every failed or stopped session')
    .option(
      '--on <machine>',
      "another machine's lost session: the machine to run it on (default: here while a slot is free, else any)",
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string | undefined, opts: { all?: boolean; on?: string; json?: boolean }) =>
      (await import('./commands/sessions.js')).respawn(ctx, ref, opts),
    );

  for (const [name, pinned] of [
    ['pin', true],
    ['unpin', false],
  ] as const) {
    program
      .command(name)
      .description(pinned ? 'keep a session at the top' : 'undo pin')
      .argument('<session>', 'id, id prefix or name', sessionRef)
      .addOption(new Option('--json', 'print JSON for scripts'))
      .action(async (ref: string, opts: { json?: boolean }) =>
        (await import('./commands/sessions.js')).pin(ctx, ref, pinned, opts),
      );
  }

  program
    .command('rm')
    .description(
      'remove sessions and their worktrees (uncommitted work is kept in refs/baton/snapshots/<name>; a branch without commits is deleted)',
    )
    .argument('[session...]', 'ids, id prefixes or names')
    .option('--completed', 'every completed session')
    .option('-f, --force', 'remove a session that is still queued, working or waiting, without asking')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (refs: string[], opts: { completed?: boolean; force?: boolean; json?: boolean }) =>
      (await import('./commands/bulk.js')).remove(
        ctx,
        refs.map((r) => sessionRef(r)),
        opts,
      ),
    );

  addWorkspaceCommands(program, Option, ctx);
  addRoutineCommands(program, Option, ctx);
  addContextCommands(program, Option, ctx);

  return program;
}
