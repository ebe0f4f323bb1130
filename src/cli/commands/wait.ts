/**
 * `baton wait`: block until sessions need a person or have ended — for scripts and CI. The exit
 * code says which state was reached (docs/exit-codes.md).
 */
import type { SessionView } from '../../api/index.js';
import type { SessionState, StateReason } from '../../events/index.js';
import { reasonText } from '../../events/format.js';
import { BatonError, EXIT_CODES, InvalidInputError } from '../../shared/errors.js';
import type { SupervisorClient } from '../client.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import { followWorkspace } from '../follow.js';

/** Exit codes of `wait` (and `dispatch --wait`), beside the error codes every command shares. */
export const WAIT_EXIT = {
  ok: EXIT_CODES.ok.code,
  needsInput: EXIT_CODES.needsInput.code,
  failed: EXIT_CODES.failed.code,
  stopped: EXIT_CODES.stopped.code,
  removed: EXIT_CODES.removed.code,
  timedOut: EXIT_CODES.timedOut.code,
} as const;

/** States in which a session no longer moves on its own: it needs a person, or it has ended. */
const SETTLED: readonly SessionState[] = [
  'needs_input',
  'ready_for_review',
  'completed',
  'failed',
  'stopped',
];

export interface WaitFlags {
  any?: boolean;
  timeout?: string;
  json?: boolean;
}

export interface Outcome {
  id: string;
  name: string;
  state: SessionState | 'removed';
  reason: StateReason | null;
}

export async function wait(ctx: Context, refs: string[], opts: WaitFlags): Promise<void> {
  const timeoutMs = parseTimeout(opts.timeout);
  const api = await client(ctx);
  // The bus position first, then the states: a change in between is replayed, never missed.
  const { lastSeq } = await api.call('GET /api/workspace/events', {
    query: { after: Number.MAX_SAFE_INTEGER, limit: 1 },
  });
  const sessions = await Promise.all(
    refs.map(async (ref) => (await api.call('GET /api/sessions/:ref', { params: { ref } })).session),
  );
  const json = opts.json === true;
  const onSettled = json
    ? undefined
    : (outcome: Outcome): void => void ctx.out.write(describeOutcome(outcome));
  const outcomes = await waitFor(ctx, api, sessions, lastSeq, {
    any: opts.any === true,
    timeoutMs,
    onSettled,
  });
  report(ctx, sessions, outcomes, opts.any === true, opts.json === true);
}

/** Waits on sessions already looked up; used by `dispatch --wait` too. */
export async function waitFor(
  ctx: Context,
  api: SupervisorClient,
  sessions: SessionView[],
  after: number,
  options: { any: boolean; timeoutMs: number | undefined; onSettled?: (outcome: Outcome) => void },
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  const settle = (outcome: Outcome): void => {
    if (outcomes.has(outcome.id)) return;
    outcomes.set(outcome.id, outcome);
    options.onSettled?.(outcome);
  };
  for (const s of sessions)
    if (SETTLED.includes(s.state)) settle({ id: s.id, name: s.name, state: s.state, reason: s.reason });
  const done = (): boolean =>
    options.any ? outcomes.size > 0 : outcomes.size === new Set(sessions.map((s) => s.id)).size;
  if (done()) return outcomes;

  ctx.keepAlive = true;
  const controller = new AbortController();
  const ids = new Set(sessions.map((s) => s.id));
  let last = after;
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (options.timeoutMs !== undefined) timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  try {
    await followWorkspace(
      ctx,
      api,
      () => last,
      (event) => {
        last = event.seq;
        if (
          event.type === 'session.state_changed' &&
          ids.has(event.data.sessionId) &&
          SETTLED.includes(event.data.to)
        ) {
          settle({
            id: event.data.sessionId,
            name: event.data.name,
            state: event.data.to,
            reason: event.data.reason ?? null,
          });
        } else if (event.type === 'session.removed' && ids.has(event.data.sessionId)) {
          settle({ id: event.data.sessionId, name: event.data.name, state: 'removed', reason: null });
        }
        if (done()) controller.abort();
      },
      controller.signal,
    );
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', interrupt);
    ctx.keepAlive = false;
  }
  return outcomes;
}

/** How often `dispatch --wait` looks at a session another machine runs (its news comes through the shared log). */
const REMOTE_POLL_MS = 250;

/**
 * Waits on a session another machine runs: this supervisor's bus never carries its changes, so
 * its view (kept from the shared log) is looked at until it settles or is gone.
 */
export async function waitForElsewhere(
  ctx: Context,
  api: SupervisorClient,
  session: SessionView,
): Promise<Outcome> {
  ctx.keepAlive = true;
  try {
    // The log may not have brought it here yet: "not found" means removed only once it was seen.
    let seen = false;
    for (let view = session; ;) {
      if (SETTLED.includes(view.state))
        return { id: view.id, name: view.name, state: view.state, reason: view.reason };
      await new Promise((resolve) => setTimeout(resolve, REMOTE_POLL_MS));
      const found = await api
        .call('GET /api/sessions/:ref', { params: { ref: session.id } })
        .catch((error: unknown) => {
          if (error instanceof BatonError && error.code === 'not_found') return undefined;
          throw error;
        });
      if (found === undefined && seen)
        return { id: session.id, name: session.name, state: 'removed', reason: null };
      if (found === undefined) continue;
      seen = true;
      view = found.session;
    }
  } finally {
    ctx.keepAlive = false;
  }
}

function report(
  ctx: Context,
  sessions: SessionView[],
  outcomes: Map<string, Outcome>,
  any: boolean,
  json: boolean,
): void {
  const unique = [...new Map(sessions.map((s) => [s.id, s])).values()];
  if (json) {
    printJson(
      ctx,
      unique.map((s) => outcomes.get(s.id) ?? { id: s.id, name: s.name, state: 'waiting', reason: null }),
    );
  }
  const timedOut = any ? outcomes.size === 0 : outcomes.size < unique.length;
  if (!json && timedOut) {
    const waiting = unique.filter((s) => !outcomes.has(s.id)).map((s) => s.name);
    ctx.out.write(`Timed out; still waiting on ${waiting.join(', ')}.\n`);
  }
  process.exitCode = exitCodeOf([...outcomes.values()], timedOut);
}

export function describeOutcome(outcome: Outcome): string {
  const reason = outcome.reason === null ? '' : `: ${reasonText(outcome.reason)}`;
  return `${outcome.name}: ${outcome.state.replace(/_/g, ' ')}${reason}\n`;
}

/**
 * One code for several sessions: a timeout first (something never settled), then the state that
 * most needs attention — failed, stopped, removed, needs input — and 0 only when all are done or
 * ready for review. With --any, the first to settle decides.
 */
export function exitCodeOf(outcomes: Outcome[], timedOut: boolean): number {
  if (timedOut) return WAIT_EXIT.timedOut;
  const states = new Set(outcomes.map((o) => o.state));
  if (states.has('failed')) return WAIT_EXIT.failed;
  if (states.has('stopped')) return WAIT_EXIT.stopped;
  if (states.has('removed')) return WAIT_EXIT.removed;
  if (states.has('needs_input')) return WAIT_EXIT.needsInput;
  return WAIT_EXIT.ok;
}

function parseTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 7 * 24 * 3600) {
    throw new InvalidInputError(
      `--timeout must be a number of seconds above 0 (at most a week), got "${text}"`,
    );
  }
  return seconds * 1000;
}
