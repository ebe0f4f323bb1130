/**
 * The turn loop every conversational agent shares: each prompt or reply is one turn; a reply that
 * arrives while a turn runs waits for it to end; a resumed conversation continues an unfinished
 * turn or says it is waiting; and whether a turn was open survives a restart in a state file in
 * the session's state folder. Adapters keep only their protocol, behind `TurnDriver`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { plainText } from '../shared/text.js';
import type { AgentEvent, AgentStartOptions } from './types.js';

const log = createLogger('agent.conversation');
const CLOSE_GRACE_MS = 5_000;

/** Sent when a conversation is resumed in the middle of a turn that never finished. */
export const CONTINUE_PROMPT =
  'The session was restarted while you were working. Continue the task where you left off.';
export const RESUMED_MESSAGE = 'Resumed the conversation; waiting for your reply.';

export type TurnOutcome = Extract<AgentEvent, { type: 'turn.completed' }>;

/** What the loop needs from an agent's protocol. */
export interface TurnDriver {
  /** Hands a prompt to the agent as a new turn. Called only once the conversation is ready. */
  sendTurn(prompt: string): void;
  /** Asks the agent to stop the running turn. */
  interruptTurn(): Promise<void>;
  /** Asks the agent to end (input closed, SIGTERM to its process group). */
  shutDown(): void;
  /** Ends it by force when it did not end within the grace period. */
  kill(): void;
  /** Tool calls the ended turn left open, as failed `tool.finished` events. */
  closeOpenTools(why: string): AgentEvent[];
  /** Gives up pending approvals and questions (the turn is interrupted or the agent is gone). */
  releaseWaiters(): void;
}

export interface ConversationOptions<S extends object> {
  /** Names the state file (`<agent>.json`) and log lines. */
  agent: string;
  start: AgentStartOptions;
  emit: (event: AgentEvent) => void;
  /** The adapter's own part of the state file (e.g. usage totals), when there is none yet. */
  initialState: S;
  /** False when the agent must finish starting before a turn can be sent (see `ready()`). */
  ready: boolean;
  closeGraceMs?: number;
}

type Saved<S> = S & { turnOpen: boolean };

export class Conversation<S extends object> {
  readonly exited: Promise<{ error?: string | undefined }>;
  private resolveExited!: (value: { error?: string | undefined }) => void;
  private readonly emit: (event: AgentEvent) => void;
  private readonly stateFile: string;
  private saved: Saved<S>;
  private driver!: TurnDriver;
  private isReady: boolean;
  private held: string | undefined;
  private announceWhenReady = false;
  private identified: string | undefined;
  private active = false;
  private interrupting = false;
  private ending = false;
  private readonly pendingReplies: string[] = [];

  constructor(private readonly options: ConversationOptions<S>) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.emit = options.emit;
    this.isReady = options.ready;
    mkdirSync(options.start.stateDir, { recursive: true });
    this.stateFile = join(options.start.stateDir, `${options.agent}.json`);
    this.saved = this.load();
  }

  /** The adapter's saved state, as of the last `save`. */
  get state(): Readonly<S> {
    return this.saved;
  }

  get turnActive(): boolean {
    return this.active;
  }

  get interruptRequested(): boolean {
    return this.interrupting;
  }

  get closing(): boolean {
    return this.ending;
  }

  /** The agent's conversation id, once known. */
  get agentSessionId(): string | undefined {
    return this.identified;
  }

  /** Starts the first turn: the prompt, the continuation of an unfinished turn, or a note that it resumed. */
  begin(driver: TurnDriver): void {
    this.driver = driver;
    const { resumeId, prompt } = this.options.start;
    const first = resumeId === undefined ? prompt : this.saved.turnOpen ? CONTINUE_PROMPT : undefined;
    if (first !== undefined) this.startTurn(first);
    else if (this.isReady) this.announceResumed();
    else this.announceWhenReady = true;
  }

  /** The agent can take turns now: the held prompt goes out, or queued replies start. */
  ready(): void {
    if (this.isReady) return;
    this.isReady = true;
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) {
      this.driver.sendTurn(held);
      return;
    }
    if (this.announceWhenReady) this.announceResumed();
  }

  identify(agentSessionId: string): void {
    if (agentSessionId === this.identified || agentSessionId === '') return;
    this.identified = agentSessionId;
    this.emit({ type: 'agent.identified', agentSessionId });
  }

  reply(text: string): void {
    if (this.ending) return;
    if (this.active || !this.isReady) this.pendingReplies.push(text);
    else this.startTurn(text);
  }

  /** Also used to start over in a new conversation while a turn is open. */
  startTurn(prompt: string): void {
    this.active = true;
    this.interrupting = false;
    this.save({ turnOpen: true } as Partial<Saved<S>>);
    this.emit({ type: 'turn.started', prompt });
    if (this.isReady) this.driver.sendTurn(prompt);
    else this.held = prompt;
  }

  /** Ends the running turn; `change` is saved with it (e.g. the usage the turn reported). */
  completeTurn(outcome: TurnOutcome, change: Partial<S> = {}): void {
    if (!this.active) return;
    this.driver.closeOpenTools('the turn ended before the tool finished').forEach(this.emit);
    this.active = false;
    this.interrupting = false;
    this.save({ ...change, turnOpen: false });
    this.emit(outcome);
    this.startNextReply();
  }

  save(change: Partial<S> | Partial<Saved<S>>): void {
    this.saved = { ...this.saved, ...change };
    writeFileSync(this.stateFile, JSON.stringify(this.saved));
  }

  async interrupt(): Promise<void> {
    if (!this.active) return;
    this.interrupting = true;
    this.pendingReplies.length = 0;
    this.driver.releaseWaiters();
    await this.driver.interruptTurn();
  }

  async close(): Promise<void> {
    if (!this.ending) {
      this.ending = true;
      this.driver.releaseWaiters();
      this.driver.shutDown();
      const force = setTimeout(() => this.driver.kill(), this.options.closeGraceMs ?? CLOSE_GRACE_MS);
      void this.exited.finally(() => clearTimeout(force));
    }
    await this.exited;
  }

  /** The agent is gone without having failed: a close we asked for, or a clean exit. */
  ended(): void {
    this.resolveExited({});
  }

  /** The agent is gone unasked: the open turn fails and the session learns why. */
  crashed(exit: string, detail?: string): void {
    if (this.ending) {
      this.resolveExited({});
      return;
    }
    // "exited with code 1" says nothing of why: the agent's own last words on stderr do (decision 155),
    // put first so that a list's one cut line still shows them.
    const cause = detail === undefined ? undefined : agentsLastError(plainText(detail));
    const error = cause === undefined || exit.includes(cause) ? exit : `${cause} (${exit})`;
    this.driver.releaseWaiters();
    if (this.active) {
      this.driver.closeOpenTools(error).forEach(this.emit);
      this.active = false;
      this.emit({ type: 'turn.completed', outcome: 'error', error });
    }
    this.emit({
      type: 'error.raised',
      message: error,
      fatal: true,
      ...(detail === undefined || detail === '' ? {} : { detail: detail.slice(-2_000) }),
    });
    this.resolveExited({ error });
  }

  /** The last turn had finished before the restart: say so in a turn of our own and wait for a reply. */
  private announceResumed(): void {
    this.emit({ type: 'turn.started' });
    this.emit({ type: 'message.added', role: 'assistant', text: RESUMED_MESSAGE });
    this.emit({ type: 'turn.completed', outcome: 'success' });
    this.startNextReply();
  }

  private startNextReply(): void {
    const next = this.pendingReplies.shift();
    if (next !== undefined && !this.ending) this.startTurn(next);
  }

  private load(): Saved<S> {
    const fresh: Saved<S> = { ...this.options.initialState, turnOpen: false };
    if (!existsSync(this.stateFile)) return fresh;
    try {
      return { ...fresh, ...(JSON.parse(readFileSync(this.stateFile, 'utf8')) as Partial<Saved<S>>) };
    } catch (error) {
      log.warn(`unreadable ${this.options.agent} state; starting afresh`, {
        file: this.stateFile,
        error: errorMessage(error),
      });
      return fresh;
    }
  }
}

/** A line that reads as the reason for a failure. */
const SAYS_WHY =
  /error|cannot|can't|could not|couldn't|denied|not found|invalid|unknown|refus|fail|must|not allowed|unauthori[sz]ed|forbidden/i;

/**
 * The line of an agent's stderr tail that says why it stopped: the last that reads as a reason
 * (stack frames and blank lines skipped), else the last line at all. Undefined for silence.
 */
export function agentsLastError(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^at .+[:(]/.test(line) && !/^[\^~\s]+$/.test(line))
    .slice(-20);
  const line = [...lines].reverse().find((l) => SAYS_WHY.test(l)) ?? lines.at(-1);
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
