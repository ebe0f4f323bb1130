/** `baton workers`: the machines serving this workspace, their load and last heartbeat. */
import type { WorkersView } from '../../api/workers.js';
import { connect } from '../client.js';
import { printJson, type Context } from '../context.js';

export async function workers(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await connect({ home: ctx.home, cwd: ctx.cwd, env: ctx.env, autostart: true });
  const view = await api.call('GET /api/workers');
  if (opts.json === true) return printJson(ctx, view);
  ctx.out.write(renderWorkers(view));
}

/** A table of the workers, this machine marked; alone, one line saying how to share a workspace. */
export function renderWorkers(view: WorkersView): string {
  if (!view.clustered) {
    return `Not clustered: this machine (${view.machine}) serves its workspace alone. To share one across machines: baton daemon start --store postgres://user@host/database\n`;
  }
  const rows = view.workers.map((w) => [
    `${w.name}${w.you ? ' *' : ''}`,
    String(w.capacity),
    String(w.running),
    String(w.free),
    ago(w.ageSeconds),
    w.stale ? 'stale' : 'live',
  ]);
  const head = ['NAME', 'CAPACITY', 'RUNNING', 'FREE', 'LAST HEARTBEAT', 'STATE'];
  const widths = head.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [`Store: ${view.store ?? ''}`, line(head), ...rows.map(line), '* this machine'].join('\n') + '\n';
}

/** `2s ago`, `3m ago`, `5h ago`, `2d ago`. */
function ago(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
