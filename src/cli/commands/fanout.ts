/** `baton fanout <items> --batch N --prompt "…"`, `baton fanout show <id>` and `baton fanout ls`. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FanoutRequest, FanoutView } from '../../api/attempts.js';
import type { AgentId, PermissionMode } from '../../events/vocabulary.js';
import { InvalidInputError } from '../../shared/errors.js';
import { parseItems } from '../../shared/items.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import { configuredAgent, firstLine, parseAgents, scriptOptions, wholeNumber } from './attempts.js';

export interface FanoutFlags {
  batch: string;
  agent?: string;
  prompt?: string;
  name?: string;
  model?: string;
  base?: string;
  script?: string;
  permissionMode: PermissionMode;
  json?: boolean;
}

export async function fanout(ctx: Context, file: string, flags: FanoutFlags): Promise<void> {
  if (flags.prompt === undefined || flags.prompt.trim() === '')
    throw new InvalidInputError('baton fanout needs --prompt "<what to do for each item>".');
  // As a dispatch: the agent named, the scripted one for a script, else the default (decision 185).
  const [agent] = parseAgents(
    flags.agent ?? (flags.script !== undefined ? 'scripted' : await configuredAgent(ctx)),
  ) as [AgentId];
  const batch = wholeNumber(flags.batch, '--batch');
  const items = parseItems(readItems(ctx, file), file);
  const body: FanoutRequest = {
    prompt: flags.prompt,
    cwd: ctx.cwd,
    agent,
    items,
    batch,
    permissionMode: flags.permissionMode,
    options: scriptOptions(ctx, flags.script, [agent]),
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.base === undefined ? {} : { base: flags.base }),
  };
  const api = await client(ctx);
  const view = await api.call('POST /api/fanouts', { body });
  for (const warning of view.warnings ?? []) ctx.err.write(`baton: warning: dispatched while ${warning}\n`);
  if (flags.json) return printJson(ctx, view);
  ctx.out.write(
    `Started fan-out ${view.id}: ${view.items} items in ${view.batches.length} batches of up to ${view.batchSize}\n`,
  );
  for (const b of view.batches)
    ctx.out.write(`  batch ${b.batch}: ${b.tries[0]?.name ?? '?'} (${b.items.length} items)\n`);
  ctx.out.write(`Report: baton fanout show ${view.id}\n`);
}

export async function show(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('GET /api/fanouts/:group', { params: { group: ref } });
  if (opts.json) return printJson(ctx, view);
  ctx.out.write(renderReport(view));
}

export async function list(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const { groups } = await api.call('GET /api/attempts', { query: { kind: 'fanout' } });
  if (opts.json) return printJson(ctx, groups);
  if (groups.length === 0)
    return void ctx.out.write(
      'No fan-outs yet (baton fanout items.txt --batch 10 --prompt "…" starts one).\n',
    );
  for (const g of groups)
    ctx.out.write(
      `${g.id}  ${g.state.padEnd(9)} ${String(g.sessions).padStart(3)} sessions  ${g.project}  ${firstLine(g.prompt)}\n`,
    );
}

/** The report as Markdown: a summary, then a section per batch. */
export function renderReport(view: FanoutView): string {
  const lines = [
    `# Fan-out ${view.id} (${view.project})`,
    '',
    `${firstLine(view.prompt)}`,
    '',
    `${view.items} items in ${view.batches.length} batches of up to ${view.batchSize}, agent ${view.agent}: ${view.done} done, ${view.failed} failed, ${view.running} running; ${view.itemsFinished} of ${view.items} items finished.${view.taskId === null ? '' : ` Task ${view.taskId}.`}`,
  ];
  for (const b of view.batches) {
    const tries = b.tries.map((t) => `${t.name} (${t.state.replace(/_/g, ' ')})`).join(', then ');
    lines.push(
      '',
      `## Batch ${b.batch}: ${b.state.replace(/_/g, ' ')}`,
      '',
      `- sessions: ${tries}${b.tries.length > 1 ? ' (retried once)' : ''}`,
    );
    lines.push(`- items: ${b.items.join(', ')} (${b.finished.length} finished)`);
    lines.push(
      `- diff: ${b.diff.files.length} files, +${b.diff.additions} −${b.diff.deletions}${b.diff.files.length === 0 ? '' : ` (${b.diff.files.join(', ')})`}`,
    );
    if (b.finalMessage !== null) lines.push('', ...b.finalMessage.split('\n').map((l) => `> ${l}`));
  }
  return lines.join('\n') + '\n';
}

function readItems(ctx: Context, file: string): string {
  const path = resolve(ctx.cwd, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError(
      `Cannot read the item file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}
