/**
 * A question the agent asks the user through Baton's MCP server (`ask_user`). The host records it
 * as `question.asked`, so the state machine moves the session to needs_input with the question;
 * the user's reply is recorded as `question.answered` and goes back to the agent as the tool's
 * result (the MCP server follows the session's log for it), not as a new turn (decision 96).
 */
import type { EventBody } from '../events/index.js';
import { SessionStateError } from '../shared/errors.js';

export class AgentQuestion {
  private pending: string | undefined;

  constructor(private readonly record: (body: EventBody) => void) {}

  /** Records the question; only mid-turn (the agent is waiting on the tool call) and one at a time. */
  ask(text: string, state: string | undefined): void {
    if (this.pending !== undefined)
      throw new SessionStateError('The agent already asked the user a question that is not answered yet.');
    if (state !== 'working')
      throw new SessionStateError(
        `The session can ask only during a turn of its agent (it is ${state?.replace(/_/g, ' ') ?? 'not started'}).`,
      );
    this.pending = text;
    this.record({ type: 'question.asked', text });
  }

  /** The user's answer arrived: true when it answers the agent's question (already recorded by then). */
  take(): boolean {
    const answered = this.pending !== undefined;
    this.pending = undefined;
    return answered;
  }

  /** The turn ended (interrupted, stopped) with the question open: nobody is waiting for the answer any more. */
  drop(): void {
    this.pending = undefined;
  }
}
