/**
 * Context commands: search every transcript, one session's transcript, handoff to another
 * agent, and import of sessions run outside Baton. Commander is passed in, as in main.ts.
 */
import type * as Commander from 'commander';
import { agentName } from './flags.js';
import { sessionRef } from './arguments.js';
import type { Context } from './context.js';
import type { HandoffFlags, ImportFlags, SearchFlags, TranscriptFlags } from './commands/context.js';

export function addContextCommands(
  program: Commander.Command,
  Option: typeof Commander.Option,
  ctx: Context,
): void {
  program
    .command('search')
    .description(
      'search every transcript, decision and note: ranked, with snippets that open the session at that point',
    )
    .argument('<words...>', 'words (prefix-matched), "a phrase", AND, OR, NOT')
    .option('--agent <agent>', 'only sessions of this agent')
    .option('--project <project>', 'only this project (its name or root folder)')
    .option('--session <session>', 'only this session', sessionRef)
    .option('--task <task>', 'only this task')
    .option('--since <age>', 'only since then: 30m, 12h, 7d, 2w or a date')
    .option(
      '--kind <kinds>',
      'only these kinds: message, reasoning, tool_input, tool_output, question, answer, error, decision, note',
    )
    .option('-n, --limit <n>', 'how many hits', '20')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (words: string[], opts: SearchFlags) =>
      (await import('./commands/context.js')).search(ctx, words.join(' '), opts),
    );

  program
    .command('transcript')
    .description("a session's normalized transcript, of any agent (secrets redacted)")
    .argument('<session>', 'id, id prefix or name, or an imported session', sessionRef)
    .option('--md', 'as Markdown')
    .option('--to-repo', "write the Markdown into the repository's .baton/transcripts/")
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, opts: TranscriptFlags) =>
      (await import('./commands/context.js')).transcript(ctx, ref, opts),
    );

  program
    .command('handoff')
    .description(
      "start a session of any agent carrying a compact pack of another session's context (its task, decisions, files, reasoning, open questions)",
    )
    .argument(
      '<session>',
      'the session to hand off from (id, id prefix, name, or an imported session)',
      sessionRef,
    )
    .argument('<task...>', 'what the new session should do')
    .addOption(
      new Option('--to <agent>', 'the agent of the new session').argParser(agentName).makeOptionMandatory(),
    )
    .option(
      '--budget <tokens>',
      'token budget of the pack: 8000, 8k, 12k (default: a tenth of the transcript, 1.5k to 8k)',
    )
    .option('--name <name>', 'name of the new session')
    .option('--model <model>', 'model of the new session')
    .option('--preview', 'print the pack; start nothing')
    .option(
      '--from-branch',
      "start on the source session's branch (its landed commit once it has landed), to build on its work",
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string, task: string[], opts: HandoffFlags) =>
      (await import('./commands/context.js')).handoff(ctx, ref, task.join(' '), opts),
    );

  program
    .command('blame')
    .description(
      "each line of a file with the session, turn and prompt that wrote it (or git's author when no session did)",
    )
    .argument('<file>', 'a file, or a range of it: file.ts, file.ts:12, file.ts:12-20')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (file: string, opts: { json?: boolean }) =>
      (await import('./commands/provenance.js')).blame(ctx, file, opts),
    );

  program
    .command('why')
    .description(
      'the turn that wrote a line: what it was asked, its place in the transcript, the decisions it cited',
    )
    .argument('<file:line>', 'a file and a line: file.ts:12')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (spec: string, opts: { json?: boolean }) =>
      (await import('./commands/provenance.js')).why(ctx, spec, opts),
    );

  program
    .command('evidence')
    .description(
      "whether each session's work is verified (Baton ran the check on it), failing, or only claimed by its agent",
    )
    .argument('[session]', 'one session (id, id prefix or name)', sessionRef)
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (ref: string | undefined, opts: { json?: boolean }) =>
      (await import('./commands/provenance.js')).evidence(ctx, ref, opts),
    );

  program
    .command('import')
    .description(
      "import sessions run outside Baton from Claude Code's, Codex's, Gemini CLI's and opencode's own transcripts (again: only what is new)",
    )
    .option('--claude', 'from $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects)')
    .option('--codex', 'from $CODEX_HOME/sessions (default ~/.codex/sessions)')
    .option('--gemini', "from Gemini CLI's ~/.gemini/tmp/*/chats")
    .option(
      '--opencode',
      "from opencode's database, $XDG_DATA_HOME/opencode/opencode.db (default ~/.local/share/opencode), read-only",
    )
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (opts: ImportFlags) => (await import('./commands/context.js')).importNative(ctx, opts));
}
