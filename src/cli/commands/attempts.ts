/** `baton dispatch --best-of N` and `baton attempts ls / show / pick`: several attempts at one prompt, compared, one landed. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AttemptGroupView, AttemptView, BestOfRequest, GroupSummary } from '../../api/attempts.js';
import { AGENT_IDS, AGENT_NAME, type AgentId } from '../../events/vocabulary.js';
import type { WorkspaceEvent } from '../../events/workspace.js';
import { EXIT_CODES, InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import type { DispatchFlags } from '../flags.js';

/** Exit status of a pick whose winner did not land (as `baton merge`'s). */
const EXIT_NOT_LANDED = EXIT_CODES.notDone.code;

export async function dispatchBestOf(
  ctx: Context,
  flags: DispatchFlags & { prompt: string; taskId?: string },
): Promise<void> {
  if (flags.on !== undefined)
    throw new InvalidInputError(
      '--on goes with a single dispatch; --best-of starts its attempts on this machine.',
      { key: '--on' },
    );
  if (
    flags.inPlace === true ||
    flags.branch !== undefined ||
    flags.carryChanges === true ||
    flags.wait === true
  ) {
    throw new InvalidInputError(
      '--best-of starts several sessions, each on its own new branch; it cannot be combined with --in-place, --branch, --carry-changes or --wait.',
    );
  }
  const agents = parseAgents(
    flags.agents ?? flags.agent ?? (flags.script !== undefined ? 'scripted' : await configuredAgent(ctx)),
  );
  const n = flags.bestOf === undefined ? undefined : wholeNumber(flags.bestOf, '--best-of');
  const body: BestOfRequest = {
    prompt: flags.prompt,
    cwd: ctx.cwd,
    agents,
    ...(n === undefined ? {} : { n }),
    permissionMode: flags.permissionMode,
    options: scriptOptions(ctx, flags.script, agents),
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.base === undefined ? {} : { base: flags.base }),
    ...(flags.taskId === undefined ? {} : { taskId: flags.taskId }),
  };
  const api = await client(ctx);
  const group = await api.call('POST /api/attempts', { body });
  for (const warning of group.warnings ?? []) ctx.err.write(`baton: warning: dispatched while ${warning}\n`);
  if (flags.json) return printJson(ctx, group);
  ctx.out.write(`Started best-of ${group.id}: ${group.attempts.length} attempts\n`);
  for (const a of group.attempts)
    ctx.out.write(`  ${a.name.padEnd(24)} ${a.agent.padEnd(9)} ${a.state.replace(/_/g, ' ')}\n`);
  ctx.out.write(`Compare them: baton attempts show ${group.id}\n`);
}

export async function list(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const { groups } = await api.call('GET /api/attempts', { query: { kind: 'best_of' } });
  if (opts.json) return printJson(ctx, groups);
  if (groups.length === 0)
    return void ctx.out.write('No best-of groups yet (baton dispatch --best-of 3 "…" starts one).\n');
  for (const g of groups)
    ctx.out.write(
      `${g.id}  ${g.state.padEnd(11)} ${String(g.sessions).padStart(2)} attempts  ${g.project}  ${firstLine(g.prompt)}${g.taskId === null ? '' : `  (task ${g.taskId})`}\n`,
    );
}

export async function show(
  ctx: Context,
  ref: string,
  opts: { json?: boolean; check: boolean },
): Promise<void> {
  const api = await client(ctx);
  const group = await api.call('GET /api/attempts/:group', {
    params: { group: ref },
    query: { check: opts.check ? 'true' : 'false' },
  });
  if (opts.json) return printJson(ctx, group);
  ctx.out.write(renderComparison(group));
}

export async function pick(
  ctx: Context,
  ref: string,
  opts: { group?: string; json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const picked = await api.call('POST /api/attempts/pick', {
    body: { session: ref, ...(opts.group === undefined ? {} : { group: opts.group }) },
  });
  const say = (line: string): void => {
    if (!opts.json) ctx.out.write(line + '\n');
  };
  say(`Picked ${ref} in ${picked.group.id}; landing it (merge ${picked.mergeId})…`);
  const controller = new AbortController();
  let settled: Extract<WorkspaceEvent, { type: 'attempt.settled' }> | undefined;
  await api.followWorkspace(
    picked.seq - 1,
    (event) => {
      if (event.type === 'merge.checking' && event.data.mergeId === picked.mergeId)
        say(`Checking: ${event.data.command}`);
      if (event.type === 'attempt.settled' && event.data.groupId === picked.group.id) {
        settled = event;
        controller.abort();
      }
    },
    controller.signal,
  );
  if (settled === undefined)
    throw new InvalidInputError(
      `The pick of ${picked.group.id} ended without a result; see \`baton events\`.`,
    );
  if (settled.data.outcome !== 'landed') process.exitCode = EXIT_NOT_LANDED;
  if (opts.json) return printJson(ctx, settled.data);
  (settled.data.outcome === 'landed' ? ctx.out : ctx.err).write(`${settled.data.message}\n`);
  for (const a of settled.data.archived) {
    ctx.out.write(
      `  ${a.name}: ${a.snapshotRef === null ? `commits kept on ${a.branch}` : `uncommitted work kept; \`baton restore ${a.snapshotRef.split('/').pop() ?? a.name}\` brings it back`}\n`,
    );
  }
}

export function renderComparison(group: AttemptGroupView): string {
  const head = `Best-of ${group.id} (${group.project}), ${group.state.replace(/_/g, ' ')}: ${firstLine(group.prompt)}${group.taskId === null ? '' : ` (task ${group.taskId})`}\n`;
  const rows = group.attempts.map((a) => [
    a.name + (a.winner ? ' ★' : ''),
    a.agent,
    a.archived ? 'archived' : a.state.replace(/_/g, ' '),
    checkText(a),
    `+${a.diff.additions} −${a.diff.deletions}`,
    String(a.diff.files.length),
    cost(a),
    `${a.seconds}s`,
    conflictText(a),
  ]);
  const table = [
    ['attempt', 'agent', 'state', 'check', 'diff', 'files', 'cost', 'time', 'conflicts'],
    ...rows,
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map((r) =>
    `  ${r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd(),
  );
  const failed = group.attempts.filter(
    (a) => a.check.outcome === 'failed' || a.check.outcome === 'timed_out' || a.check.outcome === 'error',
  );
  const tails = failed
    .map(
      (a) =>
        `\n${a.name}: \`${a.check.command ?? ''}\` ${a.check.outcome.replace(/_/g, ' ')}${a.check.exitCode === null ? '' : ` (exit ${a.check.exitCode})`}\n${a.check.outputTail === null || a.check.outputTail === '' ? '' : `${indent(a.check.outputTail)}\n`}`,
    )
    .join('');
  const files = group.attempts
    .filter((a) => a.diff.files.length > 0)
    .map((a) => `  ${a.name}: ${a.diff.files.join(', ')}\n`)
    .join('');
  const next =
    group.state === 'open' || group.state === 'pick_failed'
      ? `\nPick the winner: baton attempts pick <attempt>\n`
      : group.message === null
        ? ''
        : `\n${group.message}\n`;
  return `${head}${lines.join('\n')}\n${files === '' ? '' : `Files:\n${files}`}${tails}${next}`;
}

function checkText(a: AttemptView): string {
  if (a.check.outcome === 'none') return 'no check';
  if (a.check.outcome === 'pending') return 'not yet';
  const time = a.check.durationMs === null ? '' : ` ${(a.check.durationMs / 1000).toFixed(1)}s`;
  return `${a.check.outcome.replace(/_/g, ' ')}${time}`;
}

function cost(a: AttemptView): string {
  const tokens = a.inputTokens + a.outputTokens;
  return a.costUsd > 0 ? `$${a.costUsd.toFixed(2)}` : tokens > 0 ? `${tokens} tok` : '-';
}

function conflictText(a: AttemptView): string {
  return a.conflicts.length === 0
    ? 'none'
    : a.conflicts.map((c) => `${c.with} (${c.level}: ${c.files.join(', ')})`).join('; ');
}

/** `claude,codex,claude` → the agents; an unknown one is named. */
export function parseAgents(text: string): AgentId[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0)
    throw new InvalidInputError('--agents takes a comma-separated list of agents, e.g. claude,codex,claude.');
  for (const name of names) {
    // A well-formed name is the supervisor's to know or refuse (decision 280).
    if (!AGENT_NAME.test(name))
      throw new InvalidInputError(
        `"${name}" in --agents is not an agent name; the agents are ${AGENT_IDS.join(', ')} and your entries in config.json (baton agents).`,
      );
  }
  return names;
}

export function wholeNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidInputError(`${flag} takes a whole number of at least 1, got "${text}".`);
  return n;
}

/** `--script` for the scripted attempts (the other agents take no script). */
export function scriptOptions(
  ctx: Context,
  script: string | undefined,
  agents: readonly AgentId[],
): Partial<Record<AgentId, Record<string, unknown>>> {
  if (script === undefined) return {};
  if (!agents.includes('scripted'))
    throw new InvalidInputError('--script is only for the scripted agent, and no attempt runs it.');
  const file = resolve(ctx.cwd, script);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidInputError(
      `Cannot read script ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return { scripted: { script: JSON.parse(text) as unknown } };
  } catch (error) {
    throw new InvalidInputError(`Script ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

export function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

export type { GroupSummary };

/**
 * The agent of every attempt when none is named: the configured one, else the one installed
 * (decision 185); a choice among several is the person's, made with --agents or baton config.
 */
export async function configuredAgent(ctx: Context): Promise<string> {
  const report = await (await client(ctx)).call('GET /api/agents');
  if (report.configured !== null) return report.configured.agent;
  // Claude and Codex first; the ACP agents only when neither is installed (decision 281).
  const found = report.agents.filter((a) => a.path !== undefined);
  const real = found.filter((a) => a.agent === 'claude' || a.agent === 'codex');
  const installed = real.length > 0 ? real : found;
  if (installed.length === 1) return installed[0]!.agent;
  throw new InvalidInputError(
    `No agent is chosen${installed.length === 0 ? ' and none is installed' : ` among ${installed.map((a) => a.agent).join(', ')}`}: name them with --agents (or --agent), or baton config set agent <name>. --agent scripted tries Baton without a real agent.`,
  );
}
