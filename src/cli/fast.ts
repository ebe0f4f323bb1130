/**
 * The commands scripts, status lines and orchestrators run over and over (`ls`, `peek`, `logs`
 * without -f, `daemon status`, and `dispatch` of one session), recognised without loading
 * commander: commander and what it requires (node:child_process among them) cost every command
 * ~15 ms and 5 MB, a fifth of a bare Node start, and building the whole program ~45 ms more
 * (decision 27, "Endpoints are written once; the CLI loads only what a command needs"; decision
 * 418 for dispatch). Only plain, fully known argument lists take this path,
 * parsed strictly by Node's own `parseArgs`; anything else — help, a typo, an extra argument, a
 * flag not listed here — goes to commander, which stays the one parser of every command and the
 * one source of usage and error messages.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  AGENT_NAME,
  DEFAULT_PERMISSION_MODE,
  PERMISSION_MODES,
  type AgentId,
  type PermissionMode,
} from '../events/vocabulary.js';
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
  /** Values commander would refuse (its message is the one shown): left to it. */
  refuses?(values: Record<string, string | boolean | undefined>): boolean;
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
  // One session (not --best-of or --agents, which start attempts); an agent name or a mode commander
  // would refuse is left to it, so its message stays the one shown.
  dispatch: {
    options: {
      json,
      name: { type: 'string', short: 'n' },
      agent: { type: 'string', short: 'a' },
      model: { type: 'string', short: 'm' },
      base: { type: 'string', short: 'b' },
      script: { type: 'string', short: 's' },
      branch: { type: 'string' },
      'in-place': { type: 'boolean' },
      on: { type: 'string' },
      'carry-changes': { type: 'boolean' },
      'permission-mode': { type: 'string', short: 'p' },
      wait: { type: 'boolean', short: 'w' },
      force: { type: 'boolean' },
    },
    positionals: 1,
    refuses: (v) =>
      (typeof v.agent === 'string' && !AGENT_NAME.test(v.agent)) ||
      (typeof v['permission-mode'] === 'string' &&
        !(PERMISSION_MODES as readonly string[]).includes(v['permission-mode'])),
    run: async (ctx, [prompt], v) => {
      const text = (key: string): string | undefined => (typeof v[key] === 'string' ? v[key] : undefined);
      const flags = {
        prompt: prompt as string,
        permissionMode: (text('permission-mode') ?? DEFAULT_PERMISSION_MODE) as PermissionMode,
        ...(text('name') === undefined ? {} : { name: text('name') }),
        ...(text('agent') === undefined ? {} : { agent: text('agent') as AgentId }),
        ...(text('model') === undefined ? {} : { model: text('model') }),
        ...(text('base') === undefined ? {} : { base: text('base') }),
        ...(text('script') === undefined ? {} : { script: text('script') }),
        ...(text('branch') === undefined ? {} : { branch: text('branch') }),
        ...(text('on') === undefined ? {} : { on: text('on') }),
        ...(v['in-place'] === true ? { inPlace: true } : {}),
        ...(v['carry-changes'] === true ? { carryChanges: true } : {}),
        ...(v.wait === true ? { wait: true } : {}),
        ...(v.force === true ? { force: true } : {}),
        ...(v.json === true ? { json: true } : {}),
      };
      await (await import('./commands/sessions.js')).dispatch(ctx, flags);
    },
  },
  'daemon status': {
    options: { json },
    positionals: 0,
    run: async (ctx, _, v) => (await import('./commands/daemon.js')).status(ctx, { json: bool(v.json) }),
  },
};

/** The command to run for `args` (argv without node and script) without commander, or undefined to leave it to commander. */
export function fastCommand(ctx: Context, args: string[]): (() => Promise<void>) | undefined {
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
  if (command.refuses?.(values) === true) return undefined;
  return () => command.run(ctx, parsed.positionals, values);
}
