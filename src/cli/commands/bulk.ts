/** Commands over many sessions at once: `rm a b c`, `rm --completed`, `stop --all`. */
import type { SessionView } from '../../api/index.js';
import type { SessionState } from '../../events/index.js';
import { InvalidInputError, SessionStateError } from '../../shared/errors.js';
import type { SupervisorClient } from '../client.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import { renderSessionLine } from '../render.js';
import { unguarded } from '../terminal.js';

/** States in which an agent is (or is about to be) at work: removing one loses its turn. */
const BUSY: readonly SessionState[] = ['queued', 'preparing', 'starting', 'working', 'needs_input'];

export interface RemoveFlags {
  completed?: boolean;
  force?: boolean;
  json?: boolean;
}

export async function remove(ctx: Context, refs: string[], opts: RemoveFlags): Promise<void> {
  if (refs.length === 0 && opts.completed !== true)
    throw new InvalidInputError('Which sessions? Give names or ids, or --completed for every completed one.');
  const api = await client(ctx);
  const targets = await targetsOf(
    api,
    refs,
    opts.completed === true ? (s) => s.state === 'completed' : undefined,
  );
  if (targets.sessions.length === 0 && targets.failures.length === 0) {
    ctx.out.write('Nothing to remove: no completed sessions.\n');
    return;
  }
  const results: unknown[] = [];
  const failures = [...targets.failures];
  for (const session of targets.sessions) {
    try {
      if (BUSY.includes(session.state) && opts.force !== true && !(await confirm(session))) {
        throw new SessionStateError(
          `${session.name} is ${session.state.replace(/_/g, ' ')}; not removed. Add --force to remove it anyway (its uncommitted work is kept in a snapshot ref).`,
        );
      }
      const view = await api.call('DELETE /api/sessions/:ref', { params: { ref: session.id } });
      results.push(view);
      if (opts.json !== true) printRemoved(ctx, view);
    } catch (error) {
      failures.push(asError(error));
    }
  }
  if (opts.json === true)
    printJson(ctx, refs.length === 1 && opts.completed !== true ? (results[0] ?? null) : results);
  finish(ctx, failures);
}

export async function stop(
  ctx: Context,
  refs: string[],
  opts: { all?: boolean; json?: boolean },
): Promise<void> {
  if (refs.length > 0 && opts.all === true) throw new InvalidInputError('Give sessions or --all, not both.');
  if (refs.length === 0 && opts.all !== true)
    throw new InvalidInputError('Which sessions? Give names or ids, or --all for every running one.');
  const api = await client(ctx);
  const targets = await targetsOf(api, refs, opts.all === true ? (s) => BUSY.includes(s.state) : undefined);
  if (opts.all === true && targets.sessions.length === 0) {
    if (opts.json === true) printJson(ctx, []);
    else ctx.out.write('Nothing to stop: no session is queued, working or waiting for input.\n');
    return;
  }
  const stopped: SessionView[] = [];
  const failures = [...targets.failures];
  for (const target of targets.sessions) {
    try {
      const { session } = await api.call('POST /api/sessions/:ref/stop', { params: { ref: target.id } });
      stopped.push(session);
      if (opts.json !== true) ctx.out.write(renderSessionLine(session));
    } catch (error) {
      failures.push(asError(error));
    }
  }
  if (opts.json === true) printJson(ctx, refs.length === 1 ? (stopped[0] ?? null) : stopped);
  finish(ctx, failures);
}

/** The named sessions (each looked up; one unknown name does not stop the others), or every session that `filter` picks. */
async function targetsOf(
  api: SupervisorClient,
  refs: string[],
  filter?: (s: SessionView) => boolean,
): Promise<{ sessions: SessionView[]; failures: Error[] }> {
  if (filter !== undefined)
    return { sessions: (await api.call('GET /api/sessions')).sessions.filter(filter), failures: [] };
  const found = await Promise.allSettled(
    refs.map((ref) => api.call('GET /api/sessions/:ref', { params: { ref } })),
  );
  const sessions = new Map<string, SessionView>();
  const failures: Error[] = [];
  for (const result of found) {
    if (result.status === 'fulfilled') sessions.set(result.value.session.id, result.value.session);
    else failures.push(asError(result.reason));
  }
  return { sessions: [...sessions.values()], failures };
}

/** Each failure printed; the command fails with the last one (and its exit code) once the others are done. */
function finish(ctx: Context, failures: Error[]): void {
  const last = failures.at(-1);
  if (last === undefined) return;
  for (const error of failures.slice(0, -1)) ctx.err.write(`baton: ${error.message}\n`);
  throw last;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

async function confirm(session: SessionView): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return false;
  const { createInterface } = await import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin, output: unguarded(process.stdout) });
  try {
    const answer = await prompt.question(
      `${session.name} is ${session.state.replace(/_/g, ' ')}. Stop it and remove its worktree (uncommitted work is kept in a snapshot ref)? [y/N] `,
    );
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

interface RemovedView {
  session: SessionView;
  snapshotRef: string | null;
  snapshotCommit: string | null;
  branchDeleted: boolean;
  notes?: string[] | undefined;
}

function printRemoved(ctx: Context, view: RemovedView): void {
  ctx.out.write(`Removed ${view.session.name} (${view.session.id}) and its worktree.\n`);
  if (view.snapshotRef !== null) {
    ctx.out.write(`Uncommitted work saved as ${view.snapshotRef} (${view.snapshotCommit?.slice(0, 10)}).\n`);
    ctx.out.write(
      `  restore it with: git checkout ${view.snapshotRef} -- .   (or: git show --stat ${view.snapshotRef})\n`,
    );
  }
  if (view.notes !== undefined && view.notes.length > 0) {
    for (const note of view.notes) ctx.out.write(`${note}\n`);
    return;
  }
  ctx.out.write(
    view.branchDeleted
      ? `Branch ${view.session.branch} had no commits and was deleted.\n`
      : `Branch ${view.session.branch} is kept.\n`,
  );
}
