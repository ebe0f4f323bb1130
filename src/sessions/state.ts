/**
 * Session state derived from the protocol's own signals — never from timers or screen text.
 * The session host runs every event through `deriveState` and records each change as a
 * `state.changed` event, so the event log alone is the truth about a session's state.
 */
import type { EventBody, SessionState, StateReason } from '../events/index.js';

export { RESPAWNABLE_STATES } from '../events/states.js';

export interface SessionStatus {
  state: SessionState;
  reason?: StateReason | undefined;
}

/** States in which the agent is mid-turn and holds one of the concurrency slots. */
export const ACTIVE_STATES: readonly SessionState[] = ['starting', 'working', 'needs_input'];

/**
 * The state after `event`, or undefined when the event does not change it.
 *
 * `stopRequested` tells whether the user asked to stop: the agent then reports an aborted turn,
 * which is `stopped`, not `failed`.
 */
export function deriveState(
  current: SessionStatus,
  event: EventBody,
  context: { stopRequested: boolean; lastAssistantText?: string | undefined },
): SessionStatus | undefined {
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
      return stateAfterTurn(event, context);
    case 'session.ended':
      return stateAfterEnd(current, event);
    case 'session.started':
    case 'agent.identified':
    case 'message.added':
    case 'thinking.added':
    case 'tool.started':
    case 'tool.finished':
    case 'usage.reported':
    case 'error.raised':
    case 'state.changed':
      return undefined;
  }
}

function stateAfterTurn(
  event: Extract<EventBody, { type: 'turn.completed' }>,
  context: { stopRequested: boolean; lastAssistantText?: string | undefined },
): SessionStatus {
  if (context.stopRequested || event.outcome === 'interrupted') {
    return { state: 'stopped', reason: { kind: 'note', message: 'stopped by the user' } };
  }
  if (event.outcome === 'error') {
    return { state: 'failed', reason: { kind: 'error', message: event.error ?? 'the agent reported an error' } };
  }
  const question = trailingQuestion(context.lastAssistantText);
  if (question !== undefined) return { state: 'needs_input', reason: { kind: 'question', text: question } };
  return { state: 'ready_for_review' };
}

function stateAfterEnd(
  current: SessionStatus,
  event: Extract<EventBody, { type: 'session.ended' }>,
): SessionStatus | undefined {
  switch (event.reason) {
    case 'completed':
      return { state: 'completed' };
    case 'stopped':
      return current.state === 'stopped' ? undefined : { state: 'stopped', reason: { kind: 'note', message: 'stopped by the user' } };
    case 'failed':
    case 'host_exited':
      return { state: 'failed', reason: { kind: 'error', message: event.message ?? 'the session host exited' } };
    case 'removed':
    case 'idle':
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
