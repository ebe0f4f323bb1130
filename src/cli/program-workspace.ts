/**
 * The workspace's commands, beside the per-session ones in main.ts: conflicts, landing work
 * (merge, pr), review, environments and archives, the supervisor, the page, completion.
 * Commander is passed in: main.ts alone loads it, and only when a command needs it.
 */
import type * as Commander from 'commander';
import { sessionRef } from './arguments.js';
import { addAttemptCommands } from './program-attempts.js';
import type { Context } from './context.js';
import type { MergeFlags } from './commands/merge.js';
import type { ReviewFlags } from './flags.js';
import { addTaskCommands } from './program-tasks.js';
import { addCostCommands } from './program-cost.js';

export function addWorkspaceCommands(
  program: Commander.Command,
  Option: typeof Commander.Option,
  ctx: Context,
): void {
  program
    .command('conflicts')
    .description('live sessions that will collide with each other or with their base, before anyone merges')
    .argument('[session]', 'only the conflicts of this session (id, id prefix or name)', sessionRef)
    .option('--project <project>', 'only this project (its name or root folder)')
    .option('--diff', "print both sides' changes to each file")
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (session: string | undefined, opts: { json?: boolean; project?: string; diff?: boolean }) =>
      (await import('./commands/conflicts.js')).conflicts(ctx, session, opts),
    );

  program
    .command('merge')
    .description(
      'land sessions on their base branch through the merge queue: merge in a scratch worktree, run the check, then advance the base',
    )
    .argument('[sessions...]', 'sessions to land, as one group in this order (none: show the queue)')
    .option('--squash', 'one commit per session (its prompt as the message) instead of its history')
    .option('--plan', 'the order that lands the ready sessions with the fewest conflicts')
    .option('--planned', 'merge the sessions given in the order with the fewest conflicts, not as given')
    .option(
      '-g, --group <n>',
      'land coupled group n from `baton review`, tested once as a whole, in the planned order',
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (refs: string[], opts: MergeFlags) =>
      (await import('./commands/merge.js')).merge(ctx, refs, opts),
    );

  addAttemptCommands(program, Option, ctx);

  program
    .command('pr')
    .description(
      "push a session's branch and open a pull request (with gh when logged in, else print where to open it)",
    )
    .argument('<session>', 'id, id prefix or name', sessionRef)
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, opts: { json?: boolean }) =>
      (await import('./commands/merge.js')).pr(ctx, ref, opts),
    );

  const sync = program
    .command('sync')
    .description(
      'each session\'s last push to the shared remote (its branch, and its uncommitted work as a snapshot), or the failure; "sync": {"push": "turn"} in .baton/config.json pushes at every turn end',
    )
    .argument('[session]', 'only this session (id, id prefix or name)', sessionRef)
    .option('--now', "push the session's work now (whatever the repository's setting)")
    .option('--force', 'with --now: push over a remote branch someone else moved')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string | undefined, opts: { json?: boolean; now?: boolean; force?: boolean }) =>
      (await import('./commands/sync.js')).status(ctx, ref, opts),
    );
  sync
    .command('restore')
    .description(
      "bring a session's pushed branch back into a new worktree of this clone, with its uncommitted work laid over it as it was at its last turn end",
    )
    .argument(
      '<session>',
      "the session's id (its snapshot names its branch), or its name (the branch only)",
      sessionRef,
    )
    .option('--path <folder>', 'where the worktree goes (default: beside the repository, <repo>-<name>)')
    .option(
      '--remote <remote>',
      "the remote to restore from (default: the repository's sync.remote, else origin)",
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (session: string, opts: { json?: boolean; path?: string; remote?: string }) =>
      (await import('./commands/sync.js')).restore(ctx, session, {
        ...opts,
        json: opts.json === true || sync.opts<{ json?: boolean }>().json === true,
      }),
    );

  const policy = program
    .command('policy')
    .description('the destructive-action gate: its rules, explained verdicts, and allow rules');
  policy
    .command('ls')
    .description("the gate's rules in this repository and the allow rules that apply here")
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/policy.js')).list(ctx, opts));
  policy
    .command('test')
    .description("the gate's verdict on a command, explained: the rule, why, and the command as parsed")
    .argument('[command]', 'the command line, as an agent would run it in this repository')
    .option('--path <file>', 'judge a file edit of this path instead')
    .option('--worktree <dir>', "judge as a session working in this checkout (default: this folder's)")
    .option('--branch <name>', "the session's branch (default: the branch checked out there)")
    .option('--base <branch>', "the base branch (default: the main checkout's branch)")
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(
      async (
        command: string | undefined,
        opts: { path?: string; json?: boolean; worktree?: string; branch?: string; base?: string },
      ) => (await import('./commands/policy.js')).test(ctx, command, opts),
    );
  policy
    .command('allow')
    .description(
      'approve, from now on, the commands starting with these words (or every call of --tool) without asking; the gate still wins',
    )
    .argument('[pattern]', 'a command prefix such as "npm test"')
    .option(
      '--tool <name>',
      'a tool (Edit, Bash, apply_patch, …): every call of it, or with a pattern only its commands',
    )
    .option('--here', 'only in the repository of this folder (otherwise in every repository)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (pattern: string | undefined, opts: { tool?: string; here?: boolean; json?: boolean }) =>
      (await import('./commands/policy.js')).allow(ctx, pattern, opts),
    );
  policy
    .command('revoke')
    .description('remove an allow rule')
    .argument('<id>', 'the rule number (baton policy ls)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (id: string, opts: { json?: boolean }) =>
      (await import('./commands/policy.js')).revoke(ctx, id, opts),
    );
  addCostCommands(program, Option, ctx);

  program
    .command('completion')
    .description(
      'a completion script for your shell: source <(baton completion bash)  (zsh the same; fish: baton completion fish | source)',
    )
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string) =>
      (await import('./commands/completion.js')).completion(ctx, shell, program),
    );
  program
    .command('__sessions', { hidden: true })
    .action(async () => (await import('./commands/completion.js')).sessionNames(ctx));

  program
    .command('sandbox')
    .description(
      "the sandbox agents run in here (bubblewrap hides Baton's state folder and token from them), or why there is none",
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/daemon.js')).sandbox(ctx, opts));

  const daemon = program.command('daemon').description('the background supervisor');
  daemon
    .command('status')
    .description('whether the supervisor runs (exit 6 when it does not), its port, version and sessions')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/daemon.js')).status(ctx, opts));
  daemon
    .command('start')
    .description('start the supervisor (any command does when needed)')
    .option(
      '--store <url>',
      'serve a workspace shared by several machines through this PostgreSQL (postgres://user@host/database); else BATON_STORE or config.json\'s "store"',
    )
    .option(
      '--machine <name>',
      'this machine\'s name among the workers (default BATON_MACHINE, config.json\'s "machine", or the host name)',
    )
    .action(async (opts: { store?: string; machine?: string }) =>
      (await import('./commands/daemon.js')).start(ctx, opts),
    );
  daemon
    .command('stop')
    .description('stop the supervisor; sessions keep running and are re-attached on the next start')
    .option('--all', 'end every session host too (each session resumes on a reply)')
    .option(
      '-t, --timeout <seconds>',
      'how long to wait for it to end (default 30); still stopping then: exit 124',
    )
    .action(async (opts: { all?: boolean; timeout?: string }) =>
      (await import('./commands/daemon.js')).stop(ctx, opts),
    );
  daemon
    .command('logs')
    .description("the supervisor's log, one readable line per record")
    .option('-n, --lines <n>', 'how many of the last lines', '50')
    .option('-f, --follow', 'keep printing new lines')
    .addOption(new Option('--json', 'the JSON records as written'))
    .action(async (opts: { lines: string; follow?: boolean; json?: boolean }) =>
      (await import('./commands/daemon.js')).logs(ctx, opts),
    );

  program
    .command('workers')
    .description(
      'the machines serving this workspace (with a shared store): capacity, sessions running, last heartbeat',
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: { json?: boolean }) => (await import('./commands/workers.js')).workers(ctx, opts));

  program
    .command('ui')
    .description('open the web dashboard (a one-time login link; the token stays here)')
    .option('--no-open', 'print the link instead of opening a browser')
    .addOption(new Option('--json', 'print the login link as JSON'))
    .action(async (opts: { open: boolean; json?: boolean }) =>
      (await import('./commands/ui.js')).ui(ctx, opts),
    );

  program
    .command('review')
    .description(
      'coupled sessions grouped (shared files, imports, tests); `review <n>` one group as one combined diff',
    )
    .argument('[group]', 'group number from `baton review` (or a member session)')
    .argument('[text...]', 'the comment, with --comment (or what to change, with --request-changes)')
    .option('--open', "open the group's combined review in the browser")
    .option(
      '--comment <file:line>',
      'comment on a changed line (or first-last) of the combined diff; sent to its writer as a reply',
    )
    .option('--to <session>', 'with --comment: only this session, when several wrote the lines')
    .option('--approve <file>', 'mark a file approved')
    .option('--viewed <file>', 'mark a file viewed')
    .option(
      '--request-changes <file>',
      "mark a file as needing changes; text after it is sent to the file's writers",
    )
    .option('--clear <file>', "clear a file's review state")
    .option('--project <name>', 'project name or root (default: the repository here)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (group: string | undefined, text: string[], opts: ReviewFlags) =>
      (await import('./commands/review.js')).review(ctx, group, text, opts),
    );

  program
    .command('mcp')
    .description(
      "Baton's MCP server on stdio, for any MCP client (sessions Baton starts get their own, scoped to them)",
    )
    .action(async () => (await import('./commands/mcp.js')).mcp(ctx));

  program
    .command('accept-dangerous')
    .description('accept, for this repository, permission modes in which agents act without asking')
    .action(async () => (await import('./commands/dangerous.js')).acceptDangerous(ctx));

  addTaskCommands(program, Option, ctx);

  program
    .command('demo')
    .description('create a demo repository and sessions that show every state')
    .action(async () => (await import('./commands/demo.js')).demo(ctx));
}
