/**
 * The read-only commands scripts and status lines run over and over (`ls`, `peek`, `logs`
 * without -f, `daemon status`), recognised without loading commander: commander and what it
 * requires (node:child_process among them) cost every command ~15 ms and 5 MB, a fifth of a
 * bare Node start (decision 27, "Endpoints are written once; the CLI loads only what a command
 * needs"). Only plain, fully known argument lists take this path,
 * parsed strictly by Node's own `parseArgs`; anything else — help, a typo, an extra argument, a
 * flag not listed here — goes to commander, which stays the one parser of every command and the
 * one source of usage and error messages.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { sessionRef } from './arguments.js';
import type { Context } from './context.js';

interface ReadOnlyCommand {
  options: NonNullable<ParseArgsConfig['options']>;
  /** How many positionals it takes: exactly n, or at least one ('some'). */
  positionals: number | 'some';
  run(
    ctx: Context,
    positionals: string[],
    values: Record<string, string | boolean | undefined>,
  ): Promise<void>;
}

const json = { type: 'boolean' } as const;
const bool = (value: string | boolean | undefined): boolean | undefined =>
  value === undefined ? undefined : value === true;

const list: ReadOnlyCommand = {
  options: { json, here: { type: 'boolean' }, state: { type: 'string' }, all: { type: 'boolean' } },
  positionals: 0,
  run: async (ctx, _, v) =>
    (await import('./commands/sessions.js')).list(ctx, {
      json: bool(v.json),
      here: bool(v.here),
      all: bool(v.all),
      ...(typeof v.state === 'string' ? { state: v.state } : {}),
    }),
};

/** Keyed by the command's words; options as main.ts declares them for commander. */
const COMMANDS: Record<string, ReadOnlyCommand> = {
  ls: list,
  list,
  peek: {
    options: { json },
    positionals: 1,
    run: async (ctx, [ref], v) =>
      (await import('./commands/sessions.js')).peek(ctx, sessionRef(ref as string), { json: bool(v.json) }),
  },
  logs: {
    options: {
      json,
      after: { type: 'string', default: '0' },
      lines: { type: 'string', short: 'n' },
      full: { type: 'boolean' },
    },
    positionals: 1,
    run: async (ctx, [ref], v) =>
      (await import('./commands/stream.js')).logs(ctx, sessionRef(ref as string), {
        json: bool(v.json),
        after: String(v.after),
        full: bool(v.full),
        ...(typeof v.lines === 'string' ? { lines: v.lines } : {}),
      }),
  },
  wait: {
    options: { json, any: { type: 'boolean' }, timeout: { type: 'string', short: 't' } },
    positionals: 'some',
    run: async (ctx, refs, v) =>
      (await import('./commands/wait.js')).wait(
        ctx,
        refs.map((r) => sessionRef(r)),
        {
          json: bool(v.json),
          any: bool(v.any),
          ...(typeof v.timeout === 'string' ? { timeout: v.timeout } : {}),
        },
      ),
  },
  path: {
    options: {},
    positionals: 1,
    run: async (ctx, [ref]) => (await import('./commands/sessions.js')).path(ctx, sessionRef(ref as string)),
  },
  'daemon status': {
    options: { json },
    positionals: 0,
    run: async (ctx, _, v) => (await import('./commands/daemon.js')).status(ctx, { json: bool(v.json) }),
  },
};

/** The command to run for `args` (argv without node and script), or undefined to leave it to commander. */
export function readOnlyCommand(ctx: Context, args: string[]): (() => Promise<void>) | undefined {
  const words = args[0] === 'daemon' ? 2 : 1;
  const command = COMMANDS[args.slice(0, words).join(' ')];
  if (command === undefined) return undefined;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: args.slice(words),
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
  } catch {
    return undefined;
  }
  const count = parsed.positionals.length;
  if (command.positionals === 'some' ? count === 0 : count !== command.positionals) return undefined;
  const values = parsed.values as Record<string, string | boolean | undefined>;
  return () => command.run(ctx, parsed.positionals, values);
}
