/**
 * The one state machine of a session. Every `state.changed` event in Baton is built here, by
 * `StateMachine.apply`, from a trigger: a protocol event the agent's adapter produced (inside
 * the host), or a lifecycle fact the host or the supervisor observed (queued, host started,
 * host ended, host lost, launch failed). Which moves are legal is one table, `MOVES`; a trigger
 * that asks for an illegal move changes nothing.
 *
 * States come from the protocol's own signals — never from timers or screen text — and the event
 * log alone is the truth: the store's `state` column is a projection of these events.
 */
import type { EventBody, SessionState, StateReason } from '../events/index.js';

export { RESPAWNABLE_STATES } from '../events/states.js';

export interface SessionStatus {
  state: SessionState;
  reason?: StateReason | undefined;
}

/** States in which the agent is mid-turn and holds one of the concurrency slots. */
/** `preparing` counts too: copying, sharing and setup commands are work of their own. */
export const ACTIVE_STATES: readonly SessionState[] = ['preparing', 'starting', 'working', 'needs_input'];

/** How a host ended: by request (`completed`, `stopped`), by failure, or let go while idle. */
export type HostEnd = 'completed' | 'stopped' | 'failed' | 'idle';

export type Trigger =
  /** A protocol event from the agent, seen by the host. */
  | {
      kind: 'event';
      event: EventBody;
      stopRequested: boolean;
      stopNote?: string | undefined;
      lastAssistantText?: string | undefined;
      interruptNote?: string | undefined;
    }
  /** The watchdog paused a session between turns (a budget reached): it waits for a reply. */
  | { kind: 'paused'; message: string }
  /** Dispatched, or asked to run again (respawn): waits for a slot. */
  | { kind: 'queued'; note?: string }
  /** A host took the session and is making its worktree ready (copies, shares, setup commands). */
  | { kind: 'preparing' }
  /** A host took the session and is starting its agent. */
  | { kind: 'host_started' }
  /** The host is ending the session (it writes `session.ended` next). */
  | { kind: 'host_ending'; end: HostEnd; message?: string | undefined }
  /** The supervisor found the host gone without ending the session, or it could not start one. */
  | { kind: 'host_lost'; message: string }
  /** The user stopped a session that has no host (queued); `message` when it was not the user (a lost placement). */
  | { kind: 'stopped_by_user'; message?: string | undefined }
  /** The user marked a session with no host done. */
  | { kind: 'marked_done' };

/**
 * Legal moves: from each state, the states a trigger may take it to. A move to the same state
 * is legal only with a different reason (a second approval while one is pending). Adding a state
 * (`preparing` while a worktree is set up, `paused` by the watchdog) is one row here and its
 * triggers below.
 */
export const MOVES: Readonly<Record<SessionState, readonly SessionState[]>> = {
  queued: ['preparing', 'starting', 'stopped', 'failed', 'completed'],
  // Copies, shared folders and setup commands (decision 59, "Setup runs in the session's host"); a host
  // that dies here is lost like any other.
  preparing: ['starting', 'failed', 'stopped', 'completed'],
  starting: ['working', 'needs_input', 'ready_for_review', 'failed', 'stopped', 'completed'],
  // `starting` from mid-turn states: a host taking over from one that died unrecorded.
  working: ['needs_input', 'ready_for_review', 'starting', 'failed', 'stopped', 'completed'],
  needs_input: ['working', 'needs_input', 'ready_for_review', 'starting', 'failed', 'stopped', 'completed'],
  ready_for_review: ['working', 'needs_input', 'queued', 'starting', 'failed', 'stopped', 'completed'],
  failed: ['working', 'queued', 'starting', 'completed'],
  // `working` from `stopped`: a stopped session whose agent is still up takes a reply as its next turn.
  stopped: ['working', 'queued', 'starting', 'failed', 'completed'],
  completed: [],
};

const STOPPED_BY_USER: StateReason = { kind: 'note', message: 'stopped by the user' };
/** The stopped state's note: the user's stop, or `message` when something else stopped it. */
function stoppedFor(message: string | undefined): StateReason {
  return message === undefined ? STOPPED_BY_USER : { kind: 'note', message };
}
const INTERRUPTED_BY_USER: StateReason = {
  kind: 'note',
  message: 'turn interrupted by you; reply to steer the agent',
};

/**
 * Holds a session's status and turns triggers into `state.changed` bodies. `current` is
 * undefined for a session that has no state yet (being dispatched).
 */
export class StateMachine {
  constructor(private current?: SessionStatus) {}

  get status(): SessionStatus | undefined {
    return this.current;
  }

  /** Takes a recorded `state.changed` as the truth (replaying a log). */
  restore(status: SessionStatus): void {
    this.current = status;
  }

  /** The `state.changed` body to record for `trigger`, or undefined when the state stays. */
  apply(trigger: Trigger): EventBody | undefined {
    const from = this.current;
    const next = transition(from, trigger);
    if (next === undefined) return undefined;
    this.current = next;
    return {
      type: 'state.changed',
      ...(from === undefined ? {} : { from: from.state }),
      to: next.state,
      ...(next.reason === undefined ? {} : { reason: next.reason }),
    };
  }
}

/** The status after `trigger`, or undefined when it does not change (or the move is illegal). */
export function transition(from: SessionStatus | undefined, trigger: Trigger): SessionStatus | undefined {
  const next = target(from, trigger);
  if (next === undefined) return undefined;
  if (from === undefined) return next.state === 'queued' ? next : undefined;
  if (next.state === from.state && JSON.stringify(next.reason) === JSON.stringify(from.reason))
    return undefined;
  return MOVES[from.state].includes(next.state) ? next : undefined;
}

function target(from: SessionStatus | undefined, trigger: Trigger): SessionStatus | undefined {
  switch (trigger.kind) {
    case 'event':
      return from === undefined ? undefined : afterEvent(from, trigger);
    case 'queued':
      return {
        state: 'queued',
        ...(trigger.note === undefined ? {} : { reason: { kind: 'note', message: trigger.note } }),
      };
    case 'preparing':
      return { state: 'preparing' };
    case 'host_started':
      return { state: 'starting' };
    case 'host_ending':
      return afterHostEnd(from, trigger.end, trigger.message);
    case 'host_lost':
      return { state: 'failed', reason: { kind: 'error', message: trigger.message } };
    case 'stopped_by_user':
      return { state: 'stopped', reason: stoppedFor(trigger.message) };
    case 'marked_done':
      return { state: 'completed' };
    case 'paused':
      return from?.state === 'ready_for_review'
        ? { state: 'needs_input', reason: { kind: 'note', message: trigger.message } }
        : undefined;
  }
}

function afterEvent(
  current: SessionStatus,
  trigger: Extract<Trigger, { kind: 'event' }>,
): SessionStatus | undefined {
  const { event } = trigger;
  switch (event.type) {
    case 'turn.started':
      return { state: 'working' };
    case 'approval.requested':
      return {
        state: 'needs_input',
        reason: {
          kind: 'approval',
          requestId: event.requestId,
          tool: event.tool,
          input: event.input,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        },
      };
    case 'question.asked':
      return { state: 'needs_input', reason: { kind: 'question', text: event.text } };
    case 'approval.resolved':
    case 'question.answered':
      return current.state === 'needs_input' ? { state: 'working' } : undefined;
    case 'turn.completed':
      return afterTurn(
        event,
        trigger.stopRequested ? stoppedFor(trigger.stopNote) : undefined,
        trigger.lastAssistantText,
        trigger.interruptNote,
      );
    case 'session.started':
    case 'session.ended':
    case 'agent.identified':
    case 'message.added':
    case 'thinking.added':
    case 'tool.started':
    case 'tool.finished':
    case 'tool.blocked':
    case 'usage.reported':
    case 'limits.reported':
    case 'error.raised':
    case 'state.changed':
    case 'setup.step':
    case 'setup.output':
    case 'setup.finished':
    case 'work.checkpointed':
      return undefined;
  }
}

function afterTurn(
  event: Extract<EventBody, { type: 'turn.completed' }>,
  stopped: StateReason | undefined,
  lastAssistantText: string | undefined,
  interruptNote: string | undefined,
): SessionStatus {
  // Agents report an abort as an error; the user's stop wins.
  if (stopped !== undefined) return { state: 'stopped', reason: stopped };
  // An interrupt ends the turn, not the session: the agent waits for the person to steer it.
  // The watchdog's interrupt says why (a budget reached, a loop), whatever the agent reports.
  if (interruptNote !== undefined)
    return { state: 'needs_input', reason: { kind: 'note', message: interruptNote } };
  if (event.outcome === 'interrupted') return { state: 'needs_input', reason: INTERRUPTED_BY_USER };
  // A usage limit is not a failure: the session waits for the window's reset (decision 262).
  if (event.outcome === 'error' && event.limit !== undefined) return pausedAtLimit(event);
  if (event.outcome === 'error')
    return {
      state: 'failed',
      reason: { kind: 'error', message: event.error ?? 'the agent reported an error' },
    };
  const question = trailingQuestion(lastAssistantText);
  if (question !== undefined) return { state: 'needs_input', reason: { kind: 'question', text: question } };
  return { state: 'ready_for_review' };
}

/**
 * Paused at the agent's usage limit: `needs_input` (as a watchdog pause is) with a note that says
 * why and until when; `until` is the reset, when the watchdog resumes it with a short turn. A
 * limit without a reset time waits for the user's reply.
 */
function pausedAtLimit(event: Extract<EventBody, { type: 'turn.completed' }>): SessionStatus {
  const { window, resetsAt } = event.limit ?? {};
  const what = `paused at the usage limit${window === undefined ? '' : ` (${window} window)`}`;
  const detail = event.error === undefined ? '' : `: ${event.error}`;
  const message =
    resetsAt === undefined
      ? `${what}${detail}; reply to go on once it has reset`
      : `${what}${detail}; resumes at ${resetsAt}`;
  return {
    state: 'needs_input',
    reason: { kind: 'note', message, ...(resetsAt === undefined ? {} : { until: resetsAt }) },
  };
}

function afterHostEnd(
  from: SessionStatus | undefined,
  end: HostEnd,
  message: string | undefined,
): SessionStatus | undefined {
  switch (end) {
    case 'completed':
      return { state: 'completed' };
    case 'stopped':
      // A turn that already ended as stopped keeps its reason.
      return from?.state === 'stopped' ? undefined : { state: 'stopped', reason: stoppedFor(message) };
    case 'failed':
      return { state: 'failed', reason: { kind: 'error', message: message ?? 'the agent failed' } };
    case 'idle':
      // Letting an idle agent go keeps the state: a reply resumes the conversation.
      return undefined;
  }
}

/**
 * A turn that ends with the agent asking the user something needs input. We look only at the
 * last paragraph of the final message so a question mark buried in a long report does not count.
 */
export function trailingQuestion(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!trimmed.endsWith('?')) return undefined;
  const paragraphs = trimmed.split(/\n\s*\n/);
  return paragraphs[paragraphs.length - 1]?.trim();
}
