/** `baton routine …`: scheduled and triggered agents (src/routines), through the supervisor. */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { z } from 'zod';
import type { RoutineDetailView, RoutineRunView, RoutineView } from '../../api/routines.js';
import { formatUsd } from '../../events/format.js';
import type { NewRoutineSpec } from '../../api/routines.js';
import { EXIT_CODES, InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { repositoryRoot } from '../repository.js';
import { printJson, type Context } from '../context.js';

type Routine = z.output<typeof RoutineView>;
type Detail = z.output<typeof RoutineDetailView>;
type Run = z.output<typeof RoutineRunView>;

export interface AddFlags {
  cron?: string;
  tz?: string;
  on?: string;
  agent?: string;
  model?: string;
  template?: string;
  prompt?: string;
  promptFile?: string;
  option?: string[];
  catchUp?: boolean;
  script?: string;
  replace?: boolean;
  json?: boolean;
}

export async function add(ctx: Context, name: string, flags: AddFlags): Promise<void> {
  if (flags.promptFile !== undefined && !existsSync(resolve(ctx.cwd, flags.promptFile)))
    throw new InvalidInputError(`--prompt-file ${flags.promptFile}: no such file.`);
  if (flags.script !== undefined && flags.agent !== 'scripted')
    throw new InvalidInputError('--script is only for --agent scripted');
  const script =
    flags.script === undefined
      ? undefined
      : (await import('../script-file.js')).readScriptFile(resolve(ctx.cwd, flags.script));
  const spec = {
    ...(flags.cron === undefined ? {} : { cron: flags.cron }),
    ...(flags.tz === undefined ? {} : { tz: flags.tz }),
    ...(flags.on === undefined ? {} : { on: flags.on }),
    // None named: the supervisor gives it the dispatch default (`baton config set agent`).
    ...(flags.agent === undefined ? {} : { agent: flags.agent }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.template === undefined ? {} : { template: flags.template }),
    ...(flags.prompt === undefined ? {} : { prompt: flags.prompt }),
    // Stored relative to the repository root by the supervisor's check; given here relative to the caller.
    ...(flags.promptFile === undefined ? {} : { promptFile: await repoRelative(ctx, flags.promptFile) }),
    ...(flags.option === undefined ? {} : { options: parseOptions(flags.option) }),
    ...(flags.catchUp === false ? { catchUp: false } : {}),
    ...(script === undefined ? {} : { agentOptions: { script } }),
  } as NewRoutineSpec;
  const api = await client(ctx);
  const routine = await api.call('POST /api/routines', {
    body: { name, cwd: ctx.cwd, spec, replace: flags.replace ?? false },
  });
  if (flags.json) return printJson(ctx, routine);
  ctx.out.write(
    `Routine ${routine.name} (${routine.project}): ${routine.when}${routine.nextRunAt === null ? '' : `, next run ${routine.nextRunAt}`}.\n`,
  );
  if (routine.spec.on === 'http')
    ctx.out.write(
      `Trigger it with: curl -X POST -H "Authorization: Bearer ${routine.token}" http://127.0.0.1:<port>/api/hooks/routines/${routine.id}\n`,
    );
}

export async function ls(ctx: Context, flags: { json?: boolean }): Promise<void> {
  const { routines } = await (await client(ctx)).call('GET /api/routines', { query: { cwd: ctx.cwd } });
  if (flags.json) return printJson(ctx, { routines });
  if (routines.length === 0) {
    ctx.out.write(
      'No routines. Add one: baton routine add digest --cron "0 8 * * *" --agent codex --template digest\n',
    );
    return;
  }
  const rows = routines.map((r) => [
    r.name,
    r.project,
    r.paused ? 'paused' : r.when,
    r.nextRunAt ?? '-',
    r.lastRun === null ? '-' : `${r.lastRun.outcome} ${r.lastRun.startedAt.slice(0, 16)}`,
  ]);
  ctx.out.write(table([['NAME', 'PROJECT', 'WHEN', 'NEXT RUN', 'LAST RUN'], ...rows]));
}

export async function show(ctx: Context, name: string, flags: { json?: boolean }): Promise<void> {
  const routine = await (await client(ctx)).call('GET /api/routines/:name', { params: { name } });
  if (flags.json) return printJson(ctx, routine);
  ctx.out.write(describe(routine));
}

export async function history(
  ctx: Context,
  name: string,
  flags: { json?: boolean; limit?: string },
): Promise<void> {
  const limit = flags.limit === undefined ? undefined : Number(flags.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new InvalidInputError(`--limit takes a whole number of runs, got "${flags.limit}"`);
  const { runs } = await (
    await client(ctx)
  ).call('GET /api/routines/:name/history', {
    params: { name },
    query: limit === undefined ? {} : { limit },
  });
  if (flags.json) return printJson(ctx, { runs });
  ctx.out.write(runs.length === 0 ? `${name} has not run yet.\n` : runs.map(runLine).join(''));
}

export async function run(
  ctx: Context,
  name: string,
  flags: { now?: boolean; json?: boolean },
): Promise<void> {
  if (flags.now !== true)
    throw new InvalidInputError('`baton routine run` starts a run now: add --now to say so.');
  const result = await (await client(ctx)).call('POST /api/routines/:name/run', { params: { name } });
  if (flags.json) return printJson(ctx, result);
  ctx.out.write(runLine(result));
  if (result.outcome === 'failed') process.exitCode = EXIT_CODES.failed.code;
}

/** `baton routine dismiss|file <name>`: what to do with a run's findings (decision 156). */
export async function triage(
  ctx: Context,
  name: string,
  action: 'dismiss' | 'task',
  flags: { run?: string; json?: boolean },
): Promise<void> {
  const run = flags.run === undefined ? undefined : Number(flags.run);
  if (run !== undefined && (!Number.isInteger(run) || run < 1))
    throw new InvalidInputError(`--run takes a run's number (see baton routine history), got "${flags.run}"`);
  const result = await (
    await client(ctx)
  ).call('POST /api/routines/:name/findings', { params: { name }, body: { action, run } });
  if (flags.json) return printJson(ctx, result);
  ctx.out.write(
    result.task === null
      ? `Dismissed the findings of ${name} run #${result.run.id}; ${result.run.sessionName ?? 'its session'} is archived.\n`
      : `Filed the findings of ${name} run #${result.run.id} as task ${result.task.id} (${result.task.title}); ${result.run.sessionName ?? 'its session'} is archived.\n`,
  );
}

export async function setPaused(
  ctx: Context,
  name: string,
  paused: boolean,
  flags: { json?: boolean },
): Promise<void> {
  const routine = await (
    await client(ctx)
  ).call(paused ? 'POST /api/routines/:name/pause' : 'POST /api/routines/:name/resume', { params: { name } });
  if (flags.json) return printJson(ctx, routine);
  ctx.out.write(
    `${routine.name} ${paused ? 'paused' : `resumed${routine.nextRunAt === null ? '' : `; next run ${routine.nextRunAt}`}`}.\n`,
  );
}

export async function rm(ctx: Context, name: string, flags: { json?: boolean }): Promise<void> {
  const routine = await (await client(ctx)).call('DELETE /api/routines/:name', { params: { name } });
  if (flags.json) return printJson(ctx, routine);
  ctx.out.write(`Removed routine ${routine.name} (${routine.project}).\n`);
}

export async function templates(ctx: Context, flags: { json?: boolean }): Promise<void> {
  const { templates: list } = await (await client(ctx)).call('GET /api/routines/templates');
  if (flags.json) return printJson(ctx, { templates: list });
  ctx.out.write(
    list
      .map(
        (t) =>
          `${t.name.padEnd(20)} ${t.description}${
            Object.keys(t.options).length === 0
              ? ''
              : ` (options: ${Object.entries(t.options)
                  .map(([k, v]) => `${k}=${String(v)}`)
                  .join(', ')})`
          }\n`,
      )
      .join(''),
  );
}

function describe(r: Detail): string {
  const what =
    r.spec.template !== undefined
      ? `template ${r.spec.template}`
      : r.spec.promptFile !== undefined
        ? `prompt file ${r.spec.promptFile}`
        : `prompt "${(r.spec.prompt ?? '').split('\n')[0]}"`;
  const lines = [
    `${r.name} (${r.project}, ${r.source === 'config' ? 'from .baton/config.json' : 'added from the command line'})`,
    `  when:     ${r.when}${r.paused ? ' — paused' : ''}`,
    `  next run: ${r.nextRunAt ?? '-'}`,
    `  agent:    ${r.spec.agent}${r.spec.model === undefined ? '' : ` (${r.spec.model})`}, ${what}`,
    ...(r.spec.on === 'http'
      ? [`  trigger:  POST /api/hooks/routines/${r.id} with "Authorization: Bearer ${r.token}"`]
      : []),
    `  runs:`,
    ...(r.runs.length === 0
      ? ['    (none yet)']
      : r.runs.slice(0, 10).map((run) => `  ${runLine(run).trimEnd()}`)),
  ];
  return lines.join('\n') + '\n';
}

function runLine(run: Run): string {
  const cost = run.costUsd === null ? '' : ` ${formatUsd(run.costUsd)}`;
  const session = run.sessionName === null ? '' : ` ${run.sessionName}`;
  return `  #${run.id} ${run.startedAt.slice(0, 16)} ${run.trigger.padEnd(10)} ${run.outcome.padEnd(8)}${session}${cost}${run.cause === null ? '' : ` — ${run.cause.split('\n')[0]}`}\n`;
}

function parseOptions(pairs: string[]): Record<string, string | number | boolean> {
  const options: Record<string, string | number | boolean> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new InvalidInputError(`--option takes key=value, got "${pair}"`);
    const raw = pair.slice(eq + 1);
    options[pair.slice(0, eq)] =
      raw === 'true'
        ? true
        : raw === 'false'
          ? false
          : raw !== '' && Number.isFinite(Number(raw))
            ? Number(raw)
            : raw;
  }
  return options;
}

async function repoRelative(ctx: Context, file: string): Promise<string> {
  const root = await repositoryRoot(ctx.cwd);
  const rel = relative(root, resolve(ctx.cwd, file));
  if (rel.startsWith('..'))
    throw new InvalidInputError(`--prompt-file ${file} is outside the repository ${root}.`);
  return rel;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return (
    rows
      .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
      .join('\n') + '\n'
  );
}

export type { Routine };
