/**
 * What a session host remembers from the events it writes (or finds in the log of an earlier
 * host): the session's state, the agent's last words since the user spoke, and the approvals
 * still pending.
 */
import type { BatonEvent, EventBody } from '../events/index.js';
import { StateMachine } from './state.js';

export class HostMemory {
  /** The session's state; every change is recorded through it. */
  readonly machine = new StateMachine();
  /** The assistant's text since the user last spoke: a trailing question in it asks for input. */
  lastAssistantText: string | undefined;
  pendingApprovals: string[] = [];
  /** Why the running turn is being interrupted, when the watchdog (not the user) asked. */
  interruptNote: string | undefined;

  track(event: BatonEvent | EventBody): void {
    switch (event.type) {
      case 'state.changed':
        this.machine.restore({ state: event.to, reason: event.reason });
        break;
      case 'message.added':
        // A user message answers whatever the assistant said before; only later text can ask anew.
        this.lastAssistantText = event.role === 'assistant' ? event.text : undefined;
        break;
      case 'question.answered':
      case 'turn.started':
        this.lastAssistantText = undefined;
        if (event.type === 'turn.started') this.interruptNote = undefined;
        break;
      case 'approval.requested':
        this.pendingApprovals.push(event.requestId);
        break;
      case 'approval.resolved':
        this.pendingApprovals = this.pendingApprovals.filter((id) => id !== event.requestId);
        break;
      default:
        break;
    }
  }
}
