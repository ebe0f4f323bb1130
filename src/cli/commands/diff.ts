/** `baton diff`: a session's whole work against its base, as a patch, a stat, or JSON. */
import type { DiffStatView } from '../../api/history.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

export interface DiffFlags {
  stat?: boolean;
  json?: boolean;
}

export async function diff(ctx: Context, ref: string, opts: DiffFlags): Promise<void> {
  const api = await client(ctx);
  if (opts.stat === true && opts.json !== true) {
    ctx.out.write(renderStat(await api.call('GET /api/sessions/:ref/diffstat', { params: { ref } })));
    return;
  }
  const [stat, patch] = await Promise.all([
    api.call('GET /api/sessions/:ref/diffstat', { params: { ref } }),
    opts.stat === true ? undefined : api.text('GET /api/sessions/:ref/diff', { params: { ref } }),
  ]);
  const truncated = patch?.header('x-baton-diff-truncated') === '1';
  if (opts.json === true) {
    printJson(ctx, { ...stat, ...(patch === undefined ? {} : { diff: patch.text, truncated }) });
    return;
  }
  if (stat.files.length === 0) {
    ctx.out.write(`${stat.session}: no changes against ${shortBase(stat)}\n`);
    return;
  }
  const color = isColorTerminal(ctx);
  ctx.out.write(color ? colorize(patch?.text ?? '') : (patch?.text ?? ''));
  if (truncated)
    ctx.out.write(`\n… the diff was cut at 4 MiB; \`baton diff ${stat.session} --stat\` lists every file.\n`);
}

/** `path | 12 ++++--` lines and a summary, the way `git diff --stat` reads. */
export function renderStat(stat: DiffStatView, width = 40): string {
  if (stat.files.length === 0) return `${stat.session}: no changes against ${shortBase(stat)}\n`;
  const most = Math.max(...stat.files.map((f) => f.additions + f.deletions));
  const pathWidth = Math.min(60, Math.max(...stat.files.map((f) => f.path.length)));
  const countWidth = String(most).length;
  const lines = stat.files.map((f) => {
    const path =
      f.path.length > pathWidth
        ? `…${f.path.slice(f.path.length - pathWidth + 1)}`
        : f.path.padEnd(pathWidth);
    if (f.binary) return ` ${path} | ${'Bin'.padStart(countWidth)}\n`;
    const total = f.additions + f.deletions;
    const scale = most > width ? width / most : 1;
    const plus = Math.round(f.additions * scale);
    const minus = Math.round(f.deletions * scale);
    const mark = f.status === 'A' ? ' (new)' : f.status === 'D' ? ' (deleted)' : '';
    return ` ${path} | ${String(total).padStart(countWidth)} ${'+'.repeat(plus)}${'-'.repeat(minus)}${mark}\n`;
  });
  const n = stat.files.length;
  const summary = ` ${n} file${n === 1 ? '' : 's'} changed, ${stat.additions} insertion${stat.additions === 1 ? '' : 's'}(+), ${stat.deletions} deletion${stat.deletions === 1 ? '' : 's'}(-) against ${shortBase(stat)}\n`;
  return lines.join('') + summary;
}

function shortBase(stat: DiffStatView): string {
  const commit = stat.baseCommit.slice(0, 10);
  return stat.baseRef === stat.baseCommit || stat.baseRef === 'HEAD' ? commit : `${stat.baseRef} (${commit})`;
}

function isColorTerminal(ctx: Context): boolean {
  const stream = ctx.out as NodeJS.WritableStream & { isTTY?: boolean };
  return stream.isTTY === true && (ctx.env.NO_COLOR ?? '') === '' && ctx.env.TERM !== 'dumb';
}

const RESET = '\x1b[0m';

export function colorize(patch: string): string {
  return patch
    .split('\n')
    .map((line) => {
      if (
        line.startsWith('diff --git ') ||
        line.startsWith('index ') ||
        line.startsWith('--- ') ||
        line.startsWith('+++ ')
      )
        return `\x1b[1m${line}${RESET}`;
      if (line.startsWith('@@')) return `\x1b[36m${line}${RESET}`;
      if (line.startsWith('+')) return `\x1b[32m${line}${RESET}`;
      if (line.startsWith('-')) return `\x1b[31m${line}${RESET}`;
      return line;
    })
    .join('\n');
}
