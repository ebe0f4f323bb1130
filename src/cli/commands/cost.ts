/** `baton cost`, `baton budget`, `baton alerts` and `baton watch`: spend, limits and the watchdog's alerts. */
import type { AlertView, BudgetView, CostReport } from '../../api/watchdog.js';
import type { WorkspaceEvent } from '../../events/workspace.js';
import { formatUsd } from '../../events/format.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { age } from '../render.js';
import { printJson, type Context } from '../context.js';
import { followWorkspace } from '../follow.js';
import { formatWorkspaceEvent } from './events.js';

const GROUPINGS = ['session', 'task', 'agent', 'day'];

export async function cost(ctx: Context, opts: { by?: string; json?: boolean }): Promise<void> {
  const by = opts.by ?? 'session';
  if (!GROUPINGS.includes(by))
    throw new InvalidInputError(`--by must be one of ${GROUPINGS.join(', ')}, got "${by}"`);
  const api = await client(ctx);
  const report = await api.call('GET /api/cost', { query: { by } });
  if (opts.json) return printJson(ctx, report);
  ctx.out.write(renderCost(report));
}

export function renderCost(report: CostReport): string {
  const lines: string[] = [];
  const width = Math.max(8, ...report.rows.map((row) => row.key.length));
  lines.push(
    `${report.by.toUpperCase().padEnd(width)}  ${'INPUT'.padStart(10)} ${'OUTPUT'.padStart(9)} ${'CACHED'.padStart(10)} ${'COST'.padStart(10)}`,
  );
  for (const row of [...report.rows, report.total]) {
    const unknown =
      row.unpricedTokens > 0
        ? `  + ${tokens(row.unpricedTokens)} tokens not priced (${row.unpricedModels.join(', ')}: not in the price table)`
        : '';
    lines.push(
      `${row.key.padEnd(width)}  ${tokens(row.inputTokens).padStart(10)} ${tokens(row.outputTokens).padStart(9)} ${tokens(row.cacheReadTokens).padStart(10)} ${usd(row.usd).padStart(10)}${unknown}`,
    );
  }
  lines.push('', `Burn rate ${usd(report.perHourUsd)}/h (last 30 min); today ${usd(report.todayUsd)}.`);
  for (const budget of report.budgets) lines.push(`Budget ${budget.summary}`);
  for (const window of report.windows)
    lines.push(
      `Window ${window.summary}${window.resetsAt === null ? '' : ` (resets ${window.resetsAt.slice(0, 16).replace('T', ' ')} UTC)`}`,
    );
  lines.push(
    `Prices as of ${report.priceTable.date}; an agent's own reported cost is used when it gives one.`,
  );
  return lines.join('\n') + '\n';
}

export async function budgetSet(
  ctx: Context,
  opts: { session?: string; day?: string; window?: string[]; warnAt?: string; json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const result = await api.call('POST /api/budgets', {
    body: { session: opts.session, day: opts.day, window: opts.window, warnAt: opts.warnAt },
  });
  if (opts.json) return printJson(ctx, result);
  ctx.out.write(renderBudgets(result.budgets));
  if (result.resumed.length > 0) ctx.out.write(`Resumed within the budget: ${result.resumed.join(', ')}\n`);
}

export async function budgetList(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const result = await api.call('GET /api/budgets');
  if (opts.json) return printJson(ctx, result);
  ctx.out.write(
    result.budgets.length === 0
      ? 'No budgets. Set one: baton budget set --session 2usd --day 40usd --window 5h:200usd\n'
      : renderBudgets(result.budgets),
  );
}

export async function budgetRemove(ctx: Context, scope: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const result = await api.call('DELETE /api/budgets/:scope', { params: { scope } });
  if (opts.json) return printJson(ctx, result);
  ctx.out.write(`Removed the ${scope} budget.\n`);
  if (result.resumed.length > 0) ctx.out.write(`Resumed: ${result.resumed.join(', ')}\n`);
}

function renderBudgets(budgets: BudgetView[]): string {
  return budgets
    .map(
      (b) =>
        `${b.scope.padEnd(12)} $${b.limitUsd.toFixed(2).padEnd(9)} warn at ${Math.round(b.warnRatio * 100)}%  ${b.summary}\n`,
    )
    .join('');
}

export async function alerts(
  ctx: Context,
  opts: { all?: boolean; ack?: string; json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  if (opts.ack !== undefined) {
    const alert = await api.call('POST /api/alerts/:id/ack', { params: { id: opts.ack } });
    return opts.json ? printJson(ctx, alert) : void ctx.out.write(`Acknowledged: ${alertLine(alert)}\n`);
  }
  const list = await api.call('GET /api/alerts', { query: { all: opts.all === true ? '1' : undefined } });
  if (opts.json) return printJson(ctx, list);
  if (list.alerts.length === 0) return void ctx.out.write(opts.all ? 'No alerts.\n' : 'No open alerts.\n');
  for (const alert of list.alerts) {
    ctx.out.write(`${alertLine(alert)}\n${alert.evidence.map((e) => `    ${e}\n`).join('')}`);
  }
}

function alertLine(alert: AlertView): string {
  const acted = alert.action === 'alert' ? '' : ` (${alert.action === 'pause' ? 'paused' : 'stopped'})`;
  return `${alert.id}  ${localTime(alert.raisedAt)}  ${alert.name ?? 'workspace'}${alert.machine === undefined ? '' : ` on ${alert.machine}`}  ${alert.rule.replace(/_/g, ' ')}: ${alert.message}${acted}${alert.acknowledgedAt === null ? '' : ' [acknowledged]'}`;
}

/** `2026-11-27 11:32 (4m ago)` in this machine's time zone (decision 156), not a UTC ISO string. */
function localTime(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const local = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}`;
  return `${local} (${age(iso, now)} ago)`;
}

const WATCHED = /^(watchdog|budget)\.|^session\.state_changed$/;

/** Alerts (and budget changes, and sessions needing you) as they happen; `--all` every workspace event. */
export async function watch(ctx: Context, opts: { json?: boolean; all?: boolean }): Promise<void> {
  const api = await client(ctx);
  let last = (await api.call('GET /api/workspace/events', { query: { after: 0, limit: 1 } })).lastSeq;
  ctx.keepAlive = true;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const print = (event: WorkspaceEvent): void => {
    last = event.seq;
    if (!opts.all && !WATCHED.test(event.type)) return;
    if (
      !opts.all &&
      event.type === 'session.state_changed' &&
      event.data.to !== 'needs_input' &&
      event.data.to !== 'failed'
    )
      return;
    ctx.out.write((opts.json ? JSON.stringify(event) : formatWorkspaceEvent(event)) + '\n');
  };
  if (!opts.json) ctx.err.write('Watching for alerts (Ctrl-C to stop)…\n');
  await followWorkspace(ctx, api, () => last, print, controller.signal);
}

function tokens(n: number): string {
  return n >= 1_000_000
    ? `${(n / 1_000_000).toFixed(1)}M`
    : n >= 10_000
      ? `${Math.round(n / 1000)}k`
      : String(n);
}

const usd = formatUsd;
