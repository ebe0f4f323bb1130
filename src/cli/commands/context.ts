/** `baton search`, `transcript`, `handoff` and `import`: the context domain through the supervisor. */
import { join, resolve } from 'node:path';
import type { SearchResult } from '../../api/context.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

export interface SearchFlags {
  agent?: string;
  project?: string;
  session?: string;
  task?: string;
  since?: string;
  kind?: string;
  limit: string;
  json?: boolean;
}

export async function search(ctx: Context, words: string, opts: SearchFlags): Promise<void> {
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    throw new InvalidInputError(`--limit must be a whole number from 1 to 200, got "${opts.limit}".`);
  const api = await client(ctx);
  const query = {
    q: words,
    ...(opts.agent === undefined ? {} : { agent: opts.agent }),
    ...(opts.project === undefined ? {} : { project: opts.project }),
    ...(opts.session === undefined ? {} : { session: opts.session }),
    ...(opts.task === undefined ? {} : { task: opts.task }),
    ...(opts.since === undefined ? {} : { since: opts.since }),
    ...(opts.kind === undefined ? {} : { kind: opts.kind }),
    limit,
  };
  const result = await api.call('GET /api/search', { query });
  if (opts.json) return printJson(ctx, result);
  ctx.out.write(renderHits(result));
}

function renderHits(result: SearchResult): string {
  if (result.hits.length === 0) return `Nothing found for ${JSON.stringify(result.query)}.\n`;
  return result.hits
    .map((hit) => {
      const where =
        hit.sessionName === null
          ? `${hit.source} ${hit.docId ?? ''}`
          : `${hit.sessionName}${hit.seq === null ? '' : `#${hit.seq}`}`;
      // A command that opens the hit: a Baton session's log from that event, an imported session's transcript.
      const open =
        hit.sessionName === null || hit.seq === null
          ? ''
          : hit.source === 'imported'
            ? `   baton transcript ${hit.sessionId ?? hit.sessionName}\n`
            : `   baton logs ${hit.sessionName} --after ${Math.max(0, hit.seq - 1)}\n`;
      return `${where}  ${hit.kind.replace('_', ' ')}  ${hit.agent ?? ''}  ${hit.ts.slice(0, 16).replace('T', ' ')}\n   ${hit.snippet.replace(/\s+/g, ' ')}\n${open}`;
    })
    .join('');
}

export interface TranscriptFlags {
  md?: boolean;
  toRepo?: boolean;
  json?: boolean;
}

export async function transcript(ctx: Context, ref: string, opts: TranscriptFlags): Promise<void> {
  const api = await client(ctx);
  const result =
    opts.toRepo === true
      ? await api.call('POST /api/transcripts/:ref/export', { params: { ref }, body: { toRepo: true } })
      : await api.call('GET /api/transcripts/:ref', { params: { ref } });
  if (opts.json) return printJson(ctx, result.transcript);
  if (opts.toRepo === true) {
    ctx.out.write(`Wrote ${result.path ?? ''}\n`);
    return;
  }
  if (opts.md) {
    ctx.out.write(result.markdown);
    return;
  }
  const t = result.transcript;
  ctx.out.write(`${t.name} (${t.agent}${t.origin === 'baton' ? '' : `, imported from ${t.origin}`})\n`);
  if (t.origin === 'baton') {
    const links = await api.call('GET /api/handoffs/:ref', { params: { ref: t.sessionId } });
    for (const l of links.from)
      ctx.out.write(`Handed off from ${l.from} (${l.packTokens}-token pack): ${l.task}\n`);
    for (const l of links.to) ctx.out.write(`Handed off to ${l.to} (${l.agent}): ${l.task}\n`);
  }
  for (const e of t.entries) {
    const head =
      e.role === 'tool'
        ? `tool ${e.tool ?? ''}${e.ok === false ? ' (failed)' : ''}: ${e.input ?? ''}`
        : `${e.role}: ${e.text}`;
    ctx.out.write(`${String(e.seq).padStart(5)} ${head.replace(/\s+/g, ' ').slice(0, 300)}\n`);
    if (e.role === 'tool' && e.output !== undefined && e.output !== '')
      ctx.out.write(`      → ${e.output.replace(/\s+/g, ' ').slice(0, 300)}\n`);
  }
}

export interface HandoffFlags {
  to: string;
  budget?: string;
  name?: string;
  model?: string;
  preview?: boolean;
  fromBranch?: boolean;
  json?: boolean;
}

/** `8000`, `8k`, `12.5k` → tokens. */
export function parseBudget(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(k?)$/i.exec(text.trim());
  const tokens = match === null ? NaN : Math.round(Number(match[1]) * (match[2] === '' ? 1 : 1000));
  if (!Number.isInteger(tokens) || tokens < 200 || tokens > 200_000)
    throw new InvalidInputError(
      `--budget must be a token count from 200 to 200k (such as 8000 or 8k), got "${text}".`,
    );
  return tokens;
}

export async function handoff(ctx: Context, ref: string, task: string, opts: HandoffFlags): Promise<void> {
  const budget = opts.budget === undefined ? undefined : parseBudget(opts.budget);
  if (task.trim() === '')
    throw new InvalidInputError(
      'Say what the new session should do: baton handoff <session> --to <agent> "the task".',
    );
  const api = await client(ctx);
  const body = {
    from: ref,
    to: opts.to as 'claude',
    task,
    ...(budget === undefined ? {} : { budget }),
    preview: opts.preview === true,
    fromBranch: opts.fromBranch === true,
    ...(opts.name === undefined ? {} : { name: opts.name }),
    ...(opts.model === undefined ? {} : { model: opts.model }),
  };
  const result = await api.call('POST /api/handoffs', { body });
  if (opts.json) return printJson(ctx, result);
  const { pack } = result;
  const omitted = Object.entries(pack.omitted).map(([part, n]) => `${n} from ${part}`);
  const summary = `Pack: ${pack.tokens} of ${pack.budgetTokens} tokens (${Math.round((100 * pack.tokens) / Math.max(1, pack.sourceTokens))}% of the ${pack.sourceTokens}-token transcript), ${pack.decisionsKept} recorded decisions kept${omitted.length === 0 ? '' : `; left out: ${omitted.join(', ')}`}.\n`;
  if (result.session === null) {
    ctx.out.write(pack.text + '\n' + summary);
    return;
  }
  const start =
    opts.fromBranch === true
      ? ` on ${result.session.baseRef} (${result.session.baseCommit.slice(0, 10)})`
      : '';
  ctx.out.write(`Handed off to ${result.session.name} (${result.session.agent})${start}.\n${summary}`);
}

export interface ImportFlags {
  claude?: boolean;
  codex?: boolean;
  gemini?: boolean;
  opencode?: boolean;
  json?: boolean;
}

export async function importNative(ctx: Context, opts: ImportFlags): Promise<void> {
  if (opts.claude !== true && opts.codex !== true && opts.gemini !== true && opts.opencode !== true)
    throw new InvalidInputError('Say what to import: --claude, --codex, --gemini, --opencode or several.');
  const home = ctx.env.HOME ?? '';
  const claudeHome = resolve(ctx.cwd, ctx.env.CLAUDE_CONFIG_DIR ?? join(home, '.claude'));
  const codexHome = resolve(ctx.cwd, ctx.env.CODEX_HOME ?? join(home, '.codex'));
  const geminiHome = resolve(ctx.cwd, join(home, '.gemini'));
  const opencodeData = resolve(
    ctx.cwd,
    join(ctx.env.XDG_DATA_HOME || join(home, '.local', 'share'), 'opencode'),
  );
  const api = await client(ctx);
  const { reports } = await api.call('POST /api/import', {
    body: {
      ...(opts.claude ? { claudeHome } : {}),
      ...(opts.codex ? { codexHome } : {}),
      ...(opts.gemini ? { geminiHome } : {}),
      ...(opts.opencode ? { opencodeData } : {}),
    },
  });
  if (opts.json) return printJson(ctx, reports);
  for (const r of reports) {
    const skipped = Object.values(r.skipped).reduce((a, b) => a + b, 0);
    ctx.out.write(
      `${r.vendor}: ${r.vendor === 'opencode' ? `${r.files} sessions in its database (${r.filesRead} with new messages)` : `${r.files} files (${r.filesRead} with new lines)`}, ${r.events} new events in ${r.sessions} sessions; ${skipped} lines of other kinds skipped, ${r.malformed} malformed${r.unfinished > 0 ? `, ${r.unfinished} ${r.vendor === 'opencode' ? 'sessions' : 'files'} still being written` : ''}${r.batonSessions > 0 ? `; ${r.batonSessions} ${r.vendor === 'opencode' ? 'sessions' : 'files'} of sessions Baton ran itself passed over` : ''}.\n`,
    );
  }
}
