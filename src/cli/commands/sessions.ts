/** Session commands: thin calls to the supervisor API, printed for people or as JSON. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DispatchRequest, SessionView } from '../../api/index.js';
import { BatonError, InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import type { DispatchFlags } from '../flags.js';
import { renderList, renderPeek, renderSessionLine } from '../render.js';


export async function dispatch(ctx: Context, flags: DispatchFlags & { prompt: string }): Promise<void> {
  const options: Record<string, unknown> = {};
  if (flags.script !== undefined) {
    if (flags.agent !== 'scripted') throw new InvalidInputError('--script is only for --agent scripted');
    options.script = readScriptFile(resolve(ctx.cwd, flags.script));
  }
  const body: DispatchRequest = {
    prompt: flags.prompt,
    cwd: ctx.cwd,
    agent: flags.agent,
    permissionMode: flags.permissionMode,
    options,
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.base === undefined ? {} : { base: flags.base }),
    ...(flags.carryChanges === true ? { carryChanges: true } : {}),
    ...(flags.branch === undefined ? {} : { branch: flags.branch }),
    ...(flags.inPlace === true ? { inPlace: true } : {}),
  };
  const api = await client(ctx);
  let session: SessionView;
  let mainCheckout: { changedFiles: number; carried: boolean };
  try {
    ({ session, mainCheckout } = await api.call('POST /api/sessions', { body }));
  } catch (error) {
    if (!(error instanceof BatonError) || error.data.reason !== 'dangerous_mode_not_accepted') throw error;
    const { confirmDangerousMode } = await import('./dangerous.js');
    if (!(await confirmDangerousMode(ctx, String(error.data.root), flags.permissionMode))) throw error;
    await api.call('POST /api/dangerous-mode/accept', { body: { cwd: ctx.cwd } });
    ({ session, mainCheckout } = await api.call('POST /api/sessions', { body }));
  }
  if (flags.json) return printJson(ctx, session);
  ctx.out.write(`Dispatched ${session.name} (${session.id}) on ${session.branch}: ${session.state.replace(/_/g, ' ')}\n`);
  ctx.out.write(`  worktree: ${session.worktree}\n  follow:   baton logs ${session.name} -f\n`);
  const n = mainCheckout.changedFiles;
  if (mainCheckout.carried) ctx.out.write(`  carried:  ${n} uncommitted file(s) from the main checkout, which is left as it was\n`);
  else if (n > 0) ctx.out.write(`  note:     the main checkout has ${n} uncommitted file(s), not in this session (--carry-changes brings them)\n`);
}

function readScriptFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidInputError(`Cannot read script ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`Script ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

export async function list(ctx: Context, opts: { json?: boolean; here?: boolean }): Promise<void> {
  const api = await client(ctx);
  const project = opts.here ? await repoRoot(ctx) : undefined;
  const { sessions, reviewQueue } = await api.call('GET /api/sessions', { query: { project } });
  if (opts.json) return printJson(ctx, sessions);
  ctx.out.write(renderList(sessions, Date.now(), reviewQueue));
}

async function repoRoot(ctx: Context): Promise<string> {
  const { execFileSync } = await import('node:child_process');
  try {
    const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: ctx.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return common.replace(/\/\.git$/, '');
  } catch {
    throw new InvalidInputError(`${ctx.cwd} is not inside a git repository`);
  }
}

export async function peek(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('GET /api/sessions/:ref/peek', { params: { ref } });
  if (opts.json) return printJson(ctx, view);
  ctx.out.write(renderPeek(view));
}

export async function reply(ctx: Context, ref: string, text: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const { session } = await api.call('POST /api/sessions/:ref/reply', { params: { ref }, body: { text } });
  printResult(ctx, session, opts);
}

export async function decide(ctx: Context, ref: string, decision: 'allow' | 'deny', opts: { reason?: string; id?: string; json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const body = { decision, ...(opts.reason === undefined ? {} : { reason: opts.reason }), ...(opts.id === undefined ? {} : { requestId: opts.id }) };
  const { session } = await api.call('POST /api/sessions/:ref/approval', { params: { ref }, body });
  printResult(ctx, session, opts);
}

export async function simpleAction(ctx: Context, action: 'stop' | 'interrupt' | 'done', ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const { session } = await api.call(`POST /api/sessions/:ref/${action}`, { params: { ref } });
  printResult(ctx, session, opts);
}

export async function respawn(ctx: Context, ref: string | undefined, opts: { all?: boolean; json?: boolean }): Promise<void> {
  if (opts.all === true && ref !== undefined) throw new InvalidInputError('Give a session or --all, not both.');
  const api = await client(ctx);
  if (opts.all === true) {
    const { sessions } = await api.call('POST /api/sessions/respawn-all', { body: {} });
    if (opts.json) return printJson(ctx, sessions);
    if (sessions.length === 0) ctx.out.write('Nothing to respawn: no failed or stopped sessions.\n');
    for (const s of sessions) ctx.out.write(renderSessionLine(s));
    return;
  }
  if (ref === undefined) throw new InvalidInputError('Which session? Give its name or id, or --all.');
  const { session } = await api.call('POST /api/sessions/:ref/respawn', { params: { ref } });
  printResult(ctx, session, opts);
}

export async function pin(ctx: Context, ref: string, pinned: boolean, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const { session } = await api.call('POST /api/sessions/:ref/pin', { params: { ref }, body: { pinned } });
  printResult(ctx, session, opts);
}

export async function remove(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('DELETE /api/sessions/:ref', { params: { ref } });
  if (opts.json) return printJson(ctx, view);
  ctx.out.write(`Removed ${view.session.name} (${view.session.id}) and its worktree.\n`);
  if (view.snapshotRef !== null) {
    ctx.out.write(`Uncommitted work saved as ${view.snapshotRef} (${view.snapshotCommit?.slice(0, 10)}).\n`);
    ctx.out.write(`  restore it with: git checkout ${view.snapshotRef} -- .   (or: git show --stat ${view.snapshotRef})\n`);
  }
  ctx.out.write(view.branchDeleted ? `Branch ${view.session.branch} had no commits and was deleted.\n` : `Branch ${view.session.branch} is kept.\n`);
}

function printResult(ctx: Context, session: SessionView, opts: { json?: boolean }): void {
  if (opts.json) printJson(ctx, session);
  else ctx.out.write(renderSessionLine(session));
}
