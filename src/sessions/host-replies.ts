/**
 * The replies a host holds for its agent. A reply is accepted at once — recorded in the
 * transcript, answered to the caller — and handed to the agent one turn at a time: straight away
 * when the agent waits for it (a question, or an idle conversation), otherwise when the running
 * turn ends. A reply carrying a client id already seen is a retry and is not applied again.
 * A message from another session's agent is never taken as the answer to a question meant for the
 * user: it waits, behind the user's answer, for the turn after it (decision 96). While the
 * supervisor holds the session (keep-fresh's rebase, decision 456) nothing is handed over.
 */
import { markPoint } from '../shared/test-points.js';
import type { Asker } from './host-control.js';
import type { SessionStatus } from './state.js';

export interface ReplyQueueOptions {
  /** The session's state now. */
  status(): SessionStatus | undefined;
  /** Hands one reply to the agent; `answering` when it answers the pending question. */
  deliver(text: string, answering: boolean): Promise<void>;
  /** A delivery failed; the queue goes on with the next reply. */
  failed(text: string, error: unknown): void;
}

/** States in which the agent takes a reply as a new turn. */
const IDLE = new Set(['ready_for_review', 'stopped', 'failed']);

/** Between turns: ready for review, or waiting for its user with no tool call pending. */
function atRest(status: SessionStatus | undefined): boolean {
  if (status?.state === 'ready_for_review') return true;
  return status?.state === 'needs_input' && status.reason?.kind !== 'approval';
}

/** What the agent reads for a message from another session: who sent it, and how it came. */
export function messagePrompt(from: { name: string }, text: string): string {
  return `Message from ${from.name} (another agent's session in this workspace), sent through Baton:\n\n${text}`;
}

interface Waiting {
  text: string;
  /** Sent by another session's agent, not by the user. */
  fromSession: boolean;
}

export class ReplyQueue {
  private readonly waiting: Waiting[] = [];
  private readonly seen = new Set<string>();
  private delivering = false;
  /** The supervisor holds the session: replies wait until it lets go (decision 456). */
  private held: object | undefined;

  constructor(private readonly options: ReplyQueueOptions) {}

  /** Client ids of replies taken before (from the log of an earlier host of the session). */
  remember(clientId: string): void {
    this.seen.add(clientId);
  }

  /** Whether a reply with `clientId` was taken before: a retry, already applied. */
  isRetry(clientId: string | undefined): boolean {
    return clientId !== undefined && this.seen.has(clientId);
  }

  /** Takes a reply; false (and nothing done) when it is a retry. */
  accept(text: string, clientId?: string, fromSession = false): boolean {
    if (this.isRetry(clientId)) return false;
    if (clientId !== undefined) this.seen.add(clientId);
    this.waiting.push({ text, fromSession });
    this.pump();
    return true;
  }

  get size(): number {
    return this.waiting.length;
  }

  /** The session's state changed: a turn that ended may let the next reply go. */
  stateChanged(): void {
    this.pump();
  }

  /**
   * Keeps every reply from the agent until `resume`; false (and nothing held) while its agent is at
   * work: a turn under way, or a reply being handed over (its turn about to be).
   */
  hold(asker?: Asker): boolean {
    if (this.delivering || !atRest(this.options.status())) return false;
    // The hold ends with the connection that asked for it (decision 461): an asker that gave up
    // waiting for the answer, or died, never sends `resume`. One token per hold, so the close of an
    // earlier hold's connection, read after a later hold began, does not end the later one.
    const token = {};
    this.held = token;
    asker?.whenGone(() => {
      if (this.held === token) this.resume();
    });
    return true;
  }

  /** Lets the replies held go, the first at once when the agent can take it. */
  resume(): void {
    if (this.held === undefined) return;
    this.held = undefined;
    this.pump();
  }

  /** An interrupt drops replies not yet handed over (they are in the transcript, unanswered). */
  clear(): string[] {
    return this.waiting.splice(0).map((w) => w.text);
  }

  private pump(): void {
    if (this.delivering || this.waiting.length === 0) return;
    if (this.held !== undefined) {
      // Race tests learn that a reply waits for the supervisor's hold rather than start a turn.
      markPoint('host.reply-held');
      return;
    }
    const status = this.options.status();
    const answering = status?.state === 'needs_input' && status.reason?.kind === 'question';
    // An interrupted turn leaves the agent waiting (needs input, with a note): a reply is its next turn.
    const idle =
      IDLE.has(status?.state ?? '') || (status?.state === 'needs_input' && status.reason?.kind === 'note');
    if (!answering && !idle) return;
    // A question is the user's to answer: messages from other sessions wait for the turn after it.
    const index = idle ? 0 : this.waiting.findIndex((w) => !w.fromSession);
    if (index === -1) return;
    const [{ text }] = this.waiting.splice(index, 1) as [Waiting];
    this.delivering = true;
    this.options
      .deliver(text, answering)
      .catch((error: unknown) => this.options.failed(text, error))
      .finally(() => {
        this.delivering = false;
        this.pump();
      });
  }
}
