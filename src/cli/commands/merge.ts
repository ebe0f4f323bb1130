/** `baton merge` and `baton pr`: landing a session's work, through the supervisor's merge queue. */
import type { MergePlanView, MergeResult, MergeView } from '../../api/merge.js';
import type { WorkspaceEvent } from '../../events/workspace.js';
import { EXIT_CODES, InvalidInputError, SupervisorUnreachableError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

/** Exit status of a merge that did not land (as a `conflict` error's). */
const EXIT_NOT_LANDED = EXIT_CODES.notDone.code;

export interface MergeFlags {
  squash?: boolean;
  plan?: boolean;
  planned?: boolean;
  group?: string;
  json?: boolean;
}

export async function merge(ctx: Context, refs: string[], opts: MergeFlags): Promise<void> {
  if (opts.group !== undefined) {
    if (refs.length > 0 || opts.plan === true)
      throw new InvalidInputError(
        '--group lands one coupled group (from `baton review`); give it no session names and no --plan.',
      );
    return merge(ctx, await groupMembers(ctx, opts.group), { ...opts, group: undefined, planned: true });
  }
  if (opts.plan) {
    if (refs.length > 0)
      throw new InvalidInputError(
        '--plan orders every ready session of the repository; give it no session names.',
      );
    return plan(ctx, opts);
  }
  let api = await client(ctx);
  if (refs.length === 0) {
    const list = await api.call('GET /api/merges');
    if (opts.json) return printJson(ctx, list);
    ctx.out.write(
      list.queue.length === 0
        ? 'The merge queue is empty.\n'
        : `Merge queue:\n${list.queue.map((m) => `  ${m.position}. ${queueLine(m)}\n`).join('')}`,
    );
    if (list.recent.length > 0)
      ctx.out.write(
        `Recent:\n${list.recent
          .slice(0, 10)
          .map((r) => `  ${r.outcome.padEnd(10)} ${r.message}\n`)
          .join('')}`,
      );
    return;
  }
  const { merge: queued, seq } = await api.call('POST /api/merges', {
    body: { sessions: refs, squash: opts.squash ?? false, planned: opts.planned ?? false },
  });
  const say = (line: string): void => {
    if (!opts.json) ctx.out.write(line + '\n');
  };
  if (opts.planned && refs.length > 1) say(`Planned order: ${names(queued)}`);
  say(
    queued.position === 1
      ? `Merging ${names(queued)} into ${queued.base}…`
      : `Queued ${names(queued)} for ${queued.base} at position ${queued.position} (${queued.position - 1} ahead).`,
  );

  const controller = new AbortController();
  let detached = false;
  // Ctrl-C stops waiting, not the merge: it goes on in the supervisor.
  process.once('SIGINT', () => {
    detached = true;
    controller.abort();
  });
  let final: WorkspaceEvent | undefined;
  const follow = (): Promise<void> =>
    api.followWorkspace(
      seq - 1,
      (event) => {
        if (!('mergeId' in event.data) || event.data.mergeId !== queued.mergeId) return;
        if (event.type === 'merge.started' && queued.position > 1)
          say(`Merging onto ${event.data.baseCommit.slice(0, 12)}…`);
        else if (event.type === 'merge.checking')
          say(
            event.data.members > 1 && event.data.members < queued.sessions.length
              ? `Bisecting: checking the first ${event.data.members}…`
              : `Checking: ${event.data.command}`,
          );
        else if (
          event.type === 'merge.landed' ||
          event.type === 'merge.conflicted' ||
          event.type === 'merge.failed'
        ) {
          final = event;
          controller.abort();
        }
      },
      controller.signal,
    );
  // The merge is journaled (decision 166): a supervisor lost meanwhile is started again, which
  // finishes or undoes the merge at its start and says which on the bus, so the wait goes on
  // there, from the same event. Once: a second loss is the error it is.
  let restarted = false;
  const again = async <T>(step: () => Promise<T>): Promise<T> => {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof SupervisorUnreachableError) || restarted) throw error;
      restarted = true;
      ctx.err.write(
        `Lost the supervisor during the merge ${queued.mergeId}; starting it again to finish or undo the merge…\n`,
      );
      api = await client(ctx);
      return step();
    }
  };
  await again(follow);
  if (detached) {
    ctx.err.write(
      `Stopped waiting; the merge ${queued.mergeId} goes on (\`baton merge\` shows the queue, \`baton events\` the result).\n`,
    );
    process.exitCode = EXIT_CODES.interrupted.code;
    return;
  }
  const { recent } = await again(() => api.call('GET /api/merges'));
  const result = recent.find((r) => r.mergeId === queued.mergeId);
  if (result === undefined)
    throw new InvalidInputError(
      `The merge ${queued.mergeId} ended (${final?.type ?? 'unknown'}) but its result is gone; see \`baton events\`.`,
    );
  if (result.outcome !== 'landed') process.exitCode = EXIT_NOT_LANDED;
  if (opts.json) return printJson(ctx, result);
  printResult(ctx, result);
}

/** The members of coupled group `n` of this repository, as `baton review` numbers them. */
async function groupMembers(ctx: Context, text: string): Promise<string[]> {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidInputError(`--group takes a group number from \`baton review\`, got "${text}"`);
  const api = await client(ctx);
  const { projects } = await api.call('GET /api/review/groups', { query: {} });
  const matches = projects.flatMap((p) =>
    p.groups.filter((g) => g.number === n).map((g) => ({ project: p.project, group: g })),
  );
  if (matches.length === 0)
    throw new InvalidInputError(`No coupled group ${n}; \`baton review\` lists the groups.`);
  if (matches.length > 1)
    throw new InvalidInputError(
      `Group ${n} exists in several projects (${matches.map((m) => m.project).join(', ')}); run baton merge --group from inside the repository.`,
    );
  return (matches[0]?.group.members ?? []).map((m) => m.id);
}

function printResult(ctx: Context, result: MergeResult): void {
  if (result.outcome === 'landed') {
    ctx.out.write(`${result.message}\n`);
    if (result.checkoutUpdated !== null) ctx.out.write(`  ${result.checkoutUpdated} fast-forwarded to it.\n`);
    return;
  }
  ctx.err.write(`Not landed: ${result.message}\n`);
  if (result.files.length > 0)
    ctx.err.write(`Conflicting files:\n${result.files.map((f) => `  ${f}\n`).join('')}`);
  if (result.check.outputTail !== null && result.outcome === 'failed')
    ctx.err.write(`End of the check's output:\n${indent(result.check.outputTail)}\n`);
  if (result.culprit !== null)
    ctx.err.write(
      result.replied
        ? `Sent to ${result.culprit.name} as a reply, so its agent can fix it.\n`
        : `Could not send this to ${result.culprit.name}; reply to it yourself.\n`,
    );
}

async function plan(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view: MergePlanView = await api.call('GET /api/merges/plan');
  if (opts.json) return printJson(ctx, view);
  if (view.steps.length === 0) ctx.out.write(`No session is ready to land on ${view.base}.\n`);
  else {
    ctx.out.write(`Landing order for ${view.base} (${view.baseCommit.slice(0, 12)}):\n`);
    view.steps.forEach((step, i) => {
      const conflicts =
        step.conflicts.length === 0 ? 'merges cleanly' : `expect conflicts in ${step.conflicts.join(', ')}`;
      const others = step.conflictsWith.length === 0 ? '' : `; overlaps ${step.conflictsWith.join(', ')}`;
      ctx.out.write(`  ${i + 1}. ${step.name}: ${conflicts}${others}\n`);
    });
    ctx.out.write(`Land them: baton merge ${view.steps.map((s) => s.name).join(' ')}\n`);
  }
  if (view.skipped.length > 0)
    ctx.out.write(`Not ready: ${view.skipped.map((s) => `${s.name} (${s.reason})`).join(', ')}\n`);
}

export async function pr(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('POST /api/sessions/:ref/pr', { params: { ref } });
  if (opts.json) return printJson(ctx, view);
  if (view.committedWork)
    ctx.out.write(`Committed the uncommitted work of ${view.name} on ${view.branch}.\n`);
  ctx.out.write(`Pushed ${view.branch} (${view.commit.slice(0, 12)}) to ${view.remote}.\n`);
  if (view.via === 'gh') ctx.out.write(`Opened a pull request into ${view.base}: ${view.url ?? ''}\n`);
  else {
    if (view.note !== null) ctx.out.write(`Not opened with gh: ${view.note}\n`);
    if (view.url !== null) ctx.out.write(`Open the pull request: ${view.url}\n`);
  }
}

function names(view: MergeView): string {
  return view.sessions.map((s) => s.name).join(', ');
}

function queueLine(view: MergeView): string {
  return `${names(view)} → ${view.base} (${view.project}) ${view.state}${view.squash ? ', squash' : ''}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
