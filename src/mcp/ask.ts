/**
 * `ask_user`'s wait for the answer: the session's own events, replayed then live, from just
 * before the question — no polling. The answer is the `question.answered` after our
 * `question.asked`; a turn or session that ends first means nobody will answer. A stream cut by a
 * supervisor restart is picked up again where it stopped.
 */
import type { BatonEvent } from '../events/index.js';
import { BatonError } from '../shared/errors.js';

export interface EventFollower {
  /** Replays the session's events after `after`, then follows live until `signal` aborts or the session ends. */
  follow(
    ref: string,
    after: number,
    onEvent: (event: BatonEvent) => void,
    signal: AbortSignal,
  ): Promise<'completed' | 'removed' | undefined>;
}

/** Waits between reconnects while the supervisor restarts: there is no event to wait on across processes. */
const RECONNECT_MS = 500;

export class UnansweredError extends BatonError {
  constructor(why: string) {
    super('conflict', `The user did not answer: ${why}.`);
  }
}

export async function waitForAnswer(
  connect: () => Promise<EventFollower>,
  sessionId: string,
  after: number,
  question: string,
  signal: AbortSignal,
): Promise<string> {
  let seen = after;
  let asked = false;
  let outcome: { answer: string } | { why: string } | undefined;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const onEvent = (event: BatonEvent): void => {
    seen = Math.max(seen, event.seq);
    if (outcome !== undefined) return;
    if (!asked) asked = event.type === 'question.asked' && event.text === question;
    else if (event.type === 'question.answered') outcome = { answer: event.text };
    else if (event.type === 'turn.completed')
      outcome = { why: 'the turn ended first (interrupted or stopped)' };
    else if (event.type === 'session.ended') outcome = { why: `the session ended first (${event.reason})` };
    if (outcome !== undefined) stop.abort();
  };
  try {
    while (outcome === undefined && !signal.aborted) {
      try {
        const api = await connect();
        const ended = await api.follow(sessionId, seen, onEvent, stop.signal);
        if (ended !== undefined && outcome === undefined) outcome = { why: `the session was ${ended}` };
      } catch (error) {
        if (!(error instanceof BatonError) || error.code !== 'supervisor_unreachable') throw error;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (outcome === undefined) throw new UnansweredError('the agent stopped waiting');
  if ('why' in outcome) throw new UnansweredError(outcome.why);
  return outcome.answer;
}
