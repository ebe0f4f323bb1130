/** Session commands: thin calls to the supervisor API, printed for people or as JSON. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PlacedDispatchRequest, SessionView } from '../../api/index.js';
import { SESSION_STATES, type SessionState } from '../../events/states.js';
import { BatonError, InvalidInputError, SessionStateError } from '../../shared/errors.js';
import type { SupervisorClient } from '../client.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import type { DispatchFlags } from '../flags.js';
import { readScriptFile } from '../script-file.js';
import { repositoryRoot } from '../repository.js';
import { renderList, renderPeek, renderSessionLine, type ListLayout } from '../render.js';

export async function dispatch(ctx: Context, flags: DispatchFlags & { prompt: string }): Promise<void> {
  const options: Record<string, unknown> = {};
  // A script is the scripted agent's: giving one names that agent.
  let agent = flags.agent ?? (flags.script === undefined ? undefined : 'scripted');
  if (flags.script !== undefined) {
    if (agent !== 'scripted') throw new InvalidInputError('--script is only for --agent scripted');
    options.script = readScriptFile(resolve(ctx.cwd, flags.script));
  }
  const api = await client(ctx);
  if (agent === undefined) agent = await (await import('./agent-choice.js')).askForAgent(ctx, api);
  const body: PlacedDispatchRequest = {
    prompt: flags.prompt,
    cwd: ctx.cwd,
    ...(agent === undefined ? {} : { agent }),
    permissionMode: flags.permissionMode,
    options,
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.base === undefined ? {} : { base: flags.base }),
    ...(flags.carryChanges === true ? { carryChanges: true } : {}),
    ...(flags.branch === undefined ? {} : { branch: flags.branch }),
    ...(flags.inPlace === true ? { inPlace: true } : {}),
    ...(flags.on === undefined ? {} : { on: flags.on }),
    ...(flags.force === true ? { force: true } : {}),
  };
  // Taken before the dispatch, so `--wait` cannot miss a state the session passes through at once.
  const busPosition =
    flags.wait === true
      ? (await api.call('GET /api/workspace/events', { query: { after: Number.MAX_SAFE_INTEGER, limit: 1 } }))
          .lastSeq
      : 0;
  let session: SessionView;
  let mainCheckout: { changedFiles: number; carried: boolean };
  let warnings: string[] | undefined;
  let agentChosen: string | undefined;
  try {
    ({ session, mainCheckout, warnings, agentChosen } = await api.call('POST /api/sessions', { body }));
  } catch (error) {
    if (!(error instanceof BatonError) || error.data.reason !== 'dangerous_mode_not_accepted') throw error;
    const { confirmDangerousMode } = await import('./dangerous.js');
    if (!(await confirmDangerousMode(ctx, String(error.data.root), flags.permissionMode))) throw error;
    await api.call('POST /api/dangerous-mode/accept', { body: { cwd: ctx.cwd } });
    ({ session, mainCheckout, warnings, agentChosen } = await api.call('POST /api/sessions', { body }));
  }
  // Said on stderr so a script reading --json still learns which agent Baton picked for it.
  if (agentChosen !== undefined) ctx.err.write(`baton: no --agent given: running ${agentChosen}\n`);
  // On stderr, so it reaches a person even with --json; the session is started all the same.
  for (const warning of warnings ?? []) ctx.err.write(`baton: warning: dispatched while ${warning}\n`);
  if (flags.wait === true) return dispatchAndWait(ctx, api, session, busPosition, flags.json === true);
  if (flags.json) return printJson(ctx, session);
  ctx.out.write(
    `Dispatched ${session.name} (${session.id}) on ${session.branch}: ${session.state.replace(/_/g, ' ')}\n`,
  );
  if (session.machine !== undefined && session.machine !== null)
    ctx.out.write(`  machine:  ${session.machine}\n`);
  ctx.out.write(`  worktree: ${session.worktree}\n  follow:   baton logs ${session.name} -f\n`);
  const n = mainCheckout.changedFiles;
  if (mainCheckout.carried)
    ctx.out.write(`  carried:  ${n} uncommitted file(s) from the main checkout, which is left as it was\n`);
  else if (n > 0)
    ctx.out.write(
      `  note:     the main checkout has ${n} uncommitted file(s), not in this session (--carry-changes brings them)\n`,
    );
}

async function dispatchAndWait(
  ctx: Context,
  api: SupervisorClient,
  session: SessionView,
  after: number,
  json: boolean,
): Promise<void> {
  const { waitFor, waitForElsewhere, describeOutcome, exitCodeOf } = await import('./wait.js');
  if (!json)
    ctx.out.write(
      `Dispatched ${session.name} (${session.id}) on ${session.branch}${session.machine === undefined ? '' : ` on ${session.machine}`}; waiting until it needs input or ends…\n`,
    );
  // Placed on another machine (--on, or no free slot here): its changes come through the shared log.
  const elsewhere =
    session.machine !== undefined && session.machine !== (await api.call('GET /api/workers')).machine;
  const outcome = elsewhere
    ? await waitForElsewhere(ctx, api, session)
    : (await waitFor(ctx, api, [session], after, { any: false, timeoutMs: undefined })).get(session.id);
  if (json)
    printJson(
      ctx,
      (await api.call('GET /api/sessions/:ref', { params: { ref: session.id } }).catch(() => ({ session })))
        .session,
    );
  else if (outcome !== undefined) ctx.out.write(describeOutcome(outcome));
  process.exitCode = exitCodeOf(outcome === undefined ? [] : [outcome], outcome === undefined);
}

export async function list(
  ctx: Context,
  opts: { json?: boolean; here?: boolean; state?: string; all?: boolean },
): Promise<void> {
  const states = opts.state === undefined ? undefined : parseStates(opts.state);
  const api = await client(ctx);
  const project = opts.here ? await repositoryRoot(ctx.cwd) : undefined;
  const answer = await api.call('GET /api/sessions', {
    query: { project, ...(opts.all === true ? { removed: '1' } : {}) },
  });
  const keep = <T extends { state: SessionState }>(list: T[]): T[] =>
    states === undefined ? list : list.filter((s) => states.includes(s.state));
  const sessions = keep(answer.sessions);
  const removed = keep(answer.removed ?? []);
  if (opts.json) return printJson(ctx, opts.all === true ? [...sessions, ...removed] : sessions);
  ctx.out.write(
    renderList(
      sessions,
      Date.now(),
      states === undefined ? answer.reviewQueue : undefined,
      terminalLayout(ctx),
      answer.memory,
    ),
  );
  if (opts.all === true)
    ctx.out.write(
      removed.length === 0
        ? 'No landed or removed sessions.\n'
        : `Landed or removed (newest first; \`baton transcript <name>\` reads one):\n${removed
            .map(
              (s) =>
                `  ${s.name}  ${s.state.replace(/_/g, ' ')}  removed ${s.removedAt.slice(0, 16).replace('T', ' ')}  ${s.project}${s.snapshotRef === null ? '' : `  uncommitted work in ${s.snapshotRef}`}\n`,
            )
            .join('')}`,
    );
}

/** The terminal's width (or `COLUMNS` when output is not a terminal) and whether to colour. */
function terminalLayout(ctx: Context): ListLayout {
  const out = ctx.out as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  const fromEnv = Number(ctx.env.COLUMNS);
  const width =
    out.isTTY === true && typeof out.columns === 'number' && out.columns > 0
      ? out.columns
      : Number.isInteger(fromEnv) && fromEnv > 0
        ? fromEnv
        : undefined;
  return { width, color: out.isTTY === true && (ctx.env.NO_COLOR ?? '') === '' && ctx.env.TERM !== 'dumb' };
}

/** `working,needs-input` → the states, each checked; `-` and `_` both work. */
export function parseStates(text: string): SessionState[] {
  return text.split(',').map((word) => {
    const state = word.trim().toLowerCase().replace(/-/g, '_');
    if (!(SESSION_STATES as readonly string[]).includes(state)) {
      throw new InvalidInputError(`Unknown state "${word.trim()}"; states are: ${SESSION_STATES.join(', ')}`);
    }
    return state as SessionState;
  });
}

export async function peek(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('GET /api/sessions/:ref/peek', { params: { ref } });
  if (opts.json) return printJson(ctx, view);
  ctx.out.write(renderPeek(view));
}

export async function reply(
  ctx: Context,
  ref: string,
  text: string,
  opts: { json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const { session } = await api.call('POST /api/sessions/:ref/reply', { params: { ref }, body: { text } });
  printResult(ctx, session, opts);
}

export async function decide(
  ctx: Context,
  ref: string,
  decision: 'allow' | 'deny',
  opts: { reason?: string; id?: string; json?: boolean; always?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const body = {
    decision,
    ...(opts.reason === undefined ? {} : { reason: opts.reason }),
    ...(opts.id === undefined ? {} : { requestId: opts.id }),
    ...(opts.always === true ? { always: true } : {}),
  };
  const { session } = await api.call('POST /api/sessions/:ref/approval', { params: { ref }, body });
  printResult(ctx, session, opts);
  if (opts.always === true && opts.json !== true)
    ctx.out.write(
      'From now on calls like it are approved in this repository without asking (`baton policy ls` lists the rule, `baton policy revoke <id>` removes it).\n',
    );
}

export async function simpleAction(
  ctx: Context,
  action: 'stop' | 'interrupt' | 'done',
  ref: string,
  opts: { json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const { session } = await api.call(`POST /api/sessions/:ref/${action}`, { params: { ref } });
  printResult(ctx, session, opts);
}

export async function respawn(
  ctx: Context,
  ref: string | undefined,
  opts: { all?: boolean; on?: string; json?: boolean },
): Promise<void> {
  if (opts.all === true && ref !== undefined)
    throw new InvalidInputError('Give a session or --all, not both.');
  if (opts.all === true && opts.on !== undefined)
    throw new InvalidInputError('--on places one session of another machine: give its name, not --all.', {
      key: 'on',
    });
  const api = await client(ctx);
  if (opts.all === true) {
    const { sessions } = await api.call('POST /api/sessions/respawn-all', { body: {} });
    if (opts.json) return printJson(ctx, sessions);
    if (sessions.length === 0) ctx.out.write('Nothing to respawn: no failed or stopped sessions.\n');
    for (const s of sessions) ctx.out.write(renderSessionLine(s));
    return;
  }
  if (ref === undefined) throw new InvalidInputError('Which session? Give its name or id, or --all.');
  const { session, warnings } = await api.call('POST /api/sessions/:ref/respawn', {
    params: { ref },
    query: { on: opts.on },
  });
  for (const warning of warnings ?? []) ctx.err.write(`baton: warning: ${warning}\n`);
  printResult(ctx, session, opts);
}

export async function pin(
  ctx: Context,
  ref: string,
  pinned: boolean,
  opts: { json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const { session } = await api.call('POST /api/sessions/:ref/pin', { params: { ref }, body: { pinned } });
  printResult(ctx, session, opts);
}

/** The worktree folder alone, for `cd "$(baton path flaky)"`. */
export async function path(ctx: Context, ref: string): Promise<void> {
  const api = await client(ctx);
  const { session } = await api.call('GET /api/sessions/:ref', { params: { ref } });
  if (!existsSync(session.worktree)) {
    throw new SessionStateError(
      `The worktree of ${session.name} is gone (${session.worktree}); \`baton rm\` kept its uncommitted work in refs/baton/snapshots/.`,
    );
  }
  ctx.out.write(session.worktree + '\n');
}

function printResult(ctx: Context, session: SessionView, opts: { json?: boolean }): void {
  if (opts.json) printJson(ctx, session);
  else ctx.out.write(renderSessionLine(session));
}
