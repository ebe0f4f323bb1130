/** `baton policy`: the gate's rules, explained verdicts, allow rules (src/policy). */
import { resolve } from 'node:path';
import type { AllowRuleView, PolicyView, VerdictView } from '../../api/policy.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

export async function list(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const view = await (await client(ctx)).call('GET /api/policy');
  if (opts.json === true) return printJson(ctx, view);
  ctx.out.write(renderPolicy(view));
}

export async function test(
  ctx: Context,
  command: string | undefined,
  opts: { path?: string; json?: boolean; worktree?: string; branch?: string; base?: string },
): Promise<void> {
  if ((command === undefined) === (opts.path === undefined))
    throw new InvalidInputError('Give a command to judge, or --path <file> for a file edit (not both).');
  const body = {
    ...(command !== undefined ? { command } : { path: opts.path ?? '' }),
    ...(opts.worktree === undefined ? {} : { worktree: resolve(opts.worktree) }),
    ...(opts.branch === undefined ? {} : { branch: opts.branch }),
    ...(opts.base === undefined ? {} : { base: opts.base }),
  };
  const verdict = await (await client(ctx)).call('POST /api/policy/test', { body });
  if (opts.json === true) return printJson(ctx, verdict);
  ctx.out.write(renderVerdict(verdict));
}

export async function allow(
  ctx: Context,
  pattern: string | undefined,
  opts: { tool?: string; here?: boolean; json?: boolean },
): Promise<void> {
  if (pattern === undefined && opts.tool === undefined)
    throw new InvalidInputError('Give a command prefix ("npm test"), --tool <name>, or both.');
  const body = {
    ...(pattern === undefined ? {} : { pattern }),
    ...(opts.tool === undefined ? {} : { tool: opts.tool }),
    here: opts.here === true,
  };
  const rule = await (await client(ctx)).call('POST /api/policy/allow', { body });
  if (opts.json === true) return printJson(ctx, rule);
  ctx.out.write(`allow rule ${rule.id}: ${allowText(rule)}\n`);
}

export async function revoke(ctx: Context, id: string, opts: { json?: boolean }): Promise<void> {
  const rule = await (await client(ctx)).call('DELETE /api/policy/allow/:id', { params: { id } });
  if (opts.json === true) return printJson(ctx, rule);
  ctx.out.write(`revoked allow rule ${rule.id}: ${allowText(rule)}\n`);
}

export function renderPolicy(view: PolicyView): string {
  const lines = [
    `gate rules${view.project === null ? ' (built-in; not in a repository)' : ` in ${view.project}`}:`,
  ];
  for (const rule of view.rules)
    lines.push(
      `  ${rule.action.padEnd(5)} ${rule.id.padEnd(18)} ${rule.title}${rule.custom ? ' (this repository’s)' : ''}`,
    );
  lines.push(
    view.allow.length === 0
      ? 'allow rules: none (`baton policy allow "npm test" --here`, or `baton approve <session> --always`)'
      : 'allow rules:',
  );
  for (const rule of view.allow)
    lines.push(
      `  ${String(rule.id).padStart(3)}  ${allowText(rule)}  (${rule.source}, ${rule.createdAt.slice(0, 10)})`,
    );
  return lines.join('\n') + '\n';
}

export function renderVerdict(verdict: VerdictView): string {
  const head =
    verdict.action === 'allow'
      ? 'allow: no rule matches'
      : `${verdict.action}: ${verdict.rule ?? ''} — ${verdict.why ?? ''}${verdict.uncertain ? ' (uncertain, so it asks)' : ''}`;
  const lines = [head];
  if (verdict.suggest !== null) lines.push(`instead: ${verdict.suggest}`);
  for (const finding of verdict.findings.slice(1))
    lines.push(`also ${finding.action}: ${finding.rule} — ${finding.why}`);
  if (verdict.parsed.length > 0) lines.push('parsed as:', ...verdict.parsed.map((p) => `  ${p}`));
  if (verdict.allowRule !== null) lines.push(`an approval of it is given by allow rule ${verdict.allowRule}`);
  lines.push(`(judged as run by an agent in ${verdict.worktree})`);
  return lines.join('\n') + '\n';
}

function allowText(rule: AllowRuleView): string {
  const what =
    rule.pattern === null
      ? `every ${rule.tool ?? ''} call`
      : `commands starting \`${rule.pattern}\`${rule.tool === null ? '' : ` (${rule.tool})`}`;
  return `${what} in ${rule.project ?? 'every repository'}`;
}
