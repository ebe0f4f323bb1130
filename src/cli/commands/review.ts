/**
 * `baton review`: coupled sessions grouped, with why; `baton review 2` a group's combined diff,
 * each hunk naming the session that wrote it; `--open` the same in the browser; `--comment`,
 * `--approve`, `--viewed`, `--request-changes` and `--clear` act on it.
 */
import type { GroupReview, ReviewFile, ReviewGroupList } from '../../api/review.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import type { ReviewFlags } from '../flags.js';
import { openBrowser } from './ui.js';

const MAX_REASONS = 8;

export async function review(
  ctx: Context,
  group: string | undefined,
  text: string[],
  options: ReviewFlags,
): Promise<void> {
  const api = await client(ctx);
  const query = options.project === undefined ? {} : { project: options.project };
  const states = (['approve', 'viewed', 'requestChanges', 'clear'] as const).filter(
    (k) => options[k] !== undefined,
  );
  const acting = states.length + (options.comment === undefined ? 0 : 1) + (options.open ? 1 : 0);
  if (acting > 1)
    throw new InvalidInputError(
      'Give one of --comment, --approve, --viewed, --request-changes, --clear or --open at a time.',
    );
  if (text.length > 0 && options.comment === undefined && options.requestChanges === undefined) {
    throw new InvalidInputError(
      `Unexpected "${text.join(' ')}": only --comment and --request-changes take text.`,
    );
  }

  if (group === undefined) {
    if (acting > 0)
      throw new InvalidInputError(
        'Name the group: `baton review 2 --approve src/a.ts` (run `baton review` to see the numbers).',
      );
    const list = await api.call('GET /api/review/groups', { query });
    return options.json ? printJson(ctx, list) : void ctx.out.write(renderGroups(list));
  }
  const params = { n: group };

  if (options.comment !== undefined) {
    const match = /^(.+):(\d+)(?:-(\d+))?$/.exec(options.comment);
    if (match === null)
      throw new InvalidInputError(
        `--comment takes <file>:<line> or <file>:<first>-<last> (e.g. src/watcher.ts:12), got "${options.comment}".`,
      );
    const body = {
      path: match[1]!,
      line: Number(match[2]),
      ...(match[3] === undefined ? {} : { endLine: Number(match[3]) }),
      text: text.join(' '),
      ...(options.to === undefined ? {} : { session: options.to }),
    };
    const sent = await api.call('POST /api/review/groups/:n/comments', { params, query, body });
    if (options.json) return printJson(ctx, sent);
    ctx.out.write(
      `Sent to ${sent.sentTo.map((s) => s.name).join(' and ')} as a reply:\n${sent.reply.replace(/^/gm, '  ')}\n`,
    );
    return;
  }
  if (states.length === 1) {
    const key = states[0]!;
    const state = (
      { approve: 'approved', requestChanges: 'changes_requested', clear: 'none', viewed: 'viewed' } as const
    )[key];
    const message = text.join(' ');
    const body = { path: options[key]!, state, ...(message === '' ? {} : { message }) };
    const result = await api.call('POST /api/review/groups/:n/files', { params, query, body });
    if (options.json) return printJson(ctx, result);
    ctx.out.write(
      `${result.path}: ${state === 'none' ? 'state cleared' : state.replace(/_/g, ' ')} (group ${group}; written by ${result.sessions.join(', ')})\n`,
    );
    if (result.sentTo.length > 0)
      ctx.out.write(`Sent to ${result.sentTo.map((s) => s.name).join(' and ')} as a reply.\n`);
    return;
  }

  const view = await api.call('GET /api/review/groups/:n', { params, query });
  if (options.open) {
    const login = await api.call('POST /api/ui/login');
    const url = `${login.url}&next=${encodeURIComponent(`/review/${encodeURIComponent(view.project)}/${view.number}`)}`;
    const opened = ctx.env.BATON_NO_BROWSER === undefined && (await openBrowser(url, ctx.env));
    if (options.json) return printJson(ctx, { url, opened });
    ctx.out.write(
      `${opened ? 'Opened group' : 'Open group'} ${view.number}'s combined review:\n  ${url}\n  (the link works once, within a minute)\n`,
    );
    return;
  }
  if (options.json) return printJson(ctx, view);
  ctx.out.write(renderReview(view, colours(ctx)));
}

export function renderGroups(list: ReviewGroupList): string {
  const lines: string[] = [];
  if (list.projects.length === 0)
    lines.push('No live sessions to review. Start some with: baton dispatch "what to do" --name my-task');
  for (const project of list.projects) {
    if (list.projects.length > 1) lines.push(`${project.project} (${project.root})`, '');
    if (project.groups.length === 0) lines.push('No live sessions to review.');
    for (const group of project.groups) {
      const names = group.members.map(
        (m) => `${m.name} (${m.filesChanged} file${m.filesChanged === 1 ? '' : 's'})`,
      );
      lines.push(
        `Group ${group.number}  ${group.members.length === 1 ? names[0] : `${group.members.length} coupled sessions: ${names.join(', ')}`}`,
      );
      for (const reason of group.reasons.slice(0, MAX_REASONS)) lines.push(`    ${reason.text}`);
      if (group.reasons.length > MAX_REASONS)
        lines.push(`    … and ${group.reasons.length - MAX_REASONS} more (--json lists them all)`);
      lines.push(`    → baton review ${group.number}`, '');
    }
  }
  lines.push(`(${list.ms} ms)`);
  return lines.join('\n') + '\n';
}

type Paint = (index: number, text: string) => string;

function colours(ctx: Context): Paint {
  const tty = (ctx.out as NodeJS.WriteStream).isTTY === true && ctx.env.NO_COLOR === undefined;
  const codes = [36, 35, 33, 34, 32, 31];
  return tty ? (i, text) => `\x1b[${codes[i % codes.length]}m${text}\x1b[0m` : (_i, text) => text;
}

export function renderReview(view: GroupReview, paint: Paint = (_i, t) => t): string {
  const index = new Map(view.members.map((m, i) => [m.name, i]));
  const tag = (names: string[]) => names.map((n) => paint(index.get(n) ?? 0, n)).join('+');
  const width = Math.min(16, Math.max(...view.members.map((m) => m.name.length)));
  const out: string[] = [
    `Group ${view.number} of ${view.project}: combined review against ${view.base.slice(0, 10)}`,
    '',
  ];
  for (const m of view.members)
    out.push(
      `  ${paint(index.get(m.name)!, m.name.padEnd(width))}  ${m.state.replace(/_/g, ' ')}, ${m.branch}  (transcript: baton logs ${m.name})`,
    );
  if (view.reasons.length > 0)
    out.push('', 'Coupled because:', ...view.reasons.slice(0, MAX_REASONS).map((r) => `  ${r.text}`));
  for (const c of view.conflicts)
    out.push(
      '',
      `CONFLICT: ${c.sessions.join(' and ')} change ${c.path} in ways that do not merge; each side is shown below.`,
    );
  if (view.files.length === 0) out.push('', 'No changes against the base yet.');
  for (const file of view.files) out.push('', ...renderFile(file, tag, width, paint, index));
  return out.join('\n') + '\n';
}

function renderFile(
  file: ReviewFile,
  tag: (names: string[]) => string,
  width: number,
  paint: Paint,
  index: Map<string, number>,
): string[] {
  const state = file.state === 'none' ? '' : `  [${file.state.replace(/_/g, ' ')}]`;
  const out = [
    `━━ ${file.path}  (${file.status}${file.conflict === null ? '' : ', CONFLICT'}; ${tag(file.sessions)})${state}`,
  ];
  if (file.binary) out.push('   binary file');
  if (file.omittedLines > 0)
    out.push(
      `   ${file.omittedLines} changed lines, too many to show here (the members' own diffs have them: baton peek)`,
    );
  for (const hunk of file.hunks) {
    out.push(
      `${hunk.header}  ${file.conflict === null ? '' : 'side of '}${tag(hunk.sessions) || '(none of these sessions: a newer base, or the merge)'}`,
    );
    for (const line of hunk.lines) {
      const who =
        line.kind === ' ' || line.by.length === 0
          ? ''.padEnd(width)
          : line.by.length === 1
            ? paint(index.get(line.by[0]!) ?? 0, line.by[0]!.padEnd(width))
            : 'several'.padEnd(width);
      out.push(`${who} │${line.kind}${line.text}`);
    }
  }
  return out;
}
