/** `baton conflicts`: which live sessions will collide with each other and with their base, before anyone merges. */
import type { Conflict, ConflictsView, LineRange } from '../../api/conflicts.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

export interface ConflictsFlags {
  json?: boolean;
  project?: string;
  diff?: boolean;
}

export async function conflicts(
  ctx: Context,
  session: string | undefined,
  flags: ConflictsFlags,
): Promise<void> {
  const api = await client(ctx);
  // A fresh pass: the answer includes edits made a moment ago, by an agent or by hand.
  const view = await api.call('POST /api/conflicts/refresh', { query: { project: flags.project, session } });
  if (flags.json) return printJson(ctx, view);
  ctx.out.write(renderConflicts(view, { diff: flags.diff === true, session }));
}

export function renderConflicts(
  view: ConflictsView,
  options: { diff: boolean; session?: string | undefined },
): string {
  const pass = view.pass;
  const checked =
    pass === null
      ? ''
      : ` (${pass.sessions} live session${pass.sessions === 1 ? '' : 's'} checked in ${Math.round(pass.ms)} ms)`;
  const errors = (pass?.errors ?? [])
    .map((e) => `note: could not read ${e.name}'s worktree: ${e.message}\n`)
    .join('');
  if (view.conflicts.length === 0) {
    const scope =
      options.session === undefined
        ? 'No live sessions collide'
        : `${options.session} collides with no live session`;
    return `${scope}, with each other or with their base${checked}.\n${errors}`;
  }
  const blocks = view.conflicts.map((c) => block(c, options.diff));
  const hot = view.conflicts.filter((c) => c.level === 'hot').length;
  const soft = view.conflicts.length - hot;
  const summary = `${view.conflicts.length} collision${view.conflicts.length === 1 ? '' : 's'}: ${hot} hot, ${soft} soft${checked}.`;
  return `${blocks.join('\n')}\n${summary}\n${errors}`;
}

function block(c: Conflict, withDiff: boolean): string {
  const other = c.b.kind === 'session' ? onMachine(c.b) : `base ${c.b.ref} (now ${c.b.tip.slice(0, 10)})`;
  const lines = [`${c.level === 'hot' ? 'HOT ' : 'soft'}  ${onMachine(c.a)} ↔ ${other}   [${c.project}]`];
  const width = Math.min(40, Math.max(...c.files.map((f) => f.path.length)));
  for (const f of c.files) {
    const why = f.overlapping
      ? 'same lines'
      : f.mergeConflict === true
        ? 'git cannot merge it'
        : 'same file, other lines';
    lines.push(
      `  ${f.level === 'hot' ? 'hot ' : 'soft'} ${f.path.padEnd(width)}  ${c.a.name}: ${ranges(f.a.hunks)}  ·  ${c.b.kind === 'session' ? c.b.name : c.b.ref}: ${ranges(f.b.hunks)}   (${why})`,
    );
    if (withDiff) {
      for (const [name, side] of [
        [c.a.name, f.a],
        [c.b.kind === 'session' ? c.b.name : c.b.ref, f.b],
      ] as const) {
        lines.push(
          `    ── ${name}'s change to ${f.path} ──`,
          ...side.diff
            .trimEnd()
            .split('\n')
            .map((l) => `    ${l}`),
        );
      }
    }
  }
  if (c.note !== null) lines.push(`  note: ${c.note}`);
  if (!withDiff) lines.push(`  see both sides' changes: baton conflicts ${c.a.name} --diff`);
  return lines.join('\n') + '\n';
}

/** A session's name, and its machine when it is another machine's (its work as that machine last pushed it). */
function onMachine(side: { name: string; machine?: string | undefined }): string {
  return side.machine === undefined ? side.name : `${side.name} (on ${side.machine})`;
}

/** Base lines as people read them: `12`, `12-15`, `after 12`, `the whole file`. */
function ranges(hunks: LineRange[]): string {
  if (hunks.length === 0) return '—';
  const text = hunks.map((h) =>
    h.count >= Number.MAX_SAFE_INTEGER
      ? 'whole file'
      : h.count === 0
        ? `after line ${h.start}`
        : h.count === 1
          ? `line ${h.start}`
          : `lines ${h.start}-${h.start + h.count - 1}`,
  );
  return text.length > 4 ? `${text.slice(0, 4).join(', ')} and ${text.length - 4} more` : text.join(', ');
}
