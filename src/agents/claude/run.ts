/**
 * One running Claude Code conversation, driven through the Agent SDK's `query()` with streaming
 * input. Each prompt or reply is one turn that ends with the CLI's `result`; replies sent while a
 * turn runs wait for it to end, so every reply is a turn of its own.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query, type CanUseTool, type PermissionResult, type Query, type SDKMessage, type SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { errorMessage } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import type { AgentEvent, AgentRun, AgentStartOptions, ApprovalDecision } from '../types.js';
import { InputQueue } from './input.js';
import { ClaudeNormalizer, turnOutcome } from './normalize.js';
import { ClaudeProcess } from './process.js';
import { describeToolInput } from './tools.js';
import { usageDeltas, type TotalsByModel } from './usage.js';

const log = createLogger('agent.claude');
const CLOSE_GRACE_MS = 5_000;

/** Sent when a conversation is resumed in the middle of a turn that never finished. */
export const CONTINUE_PROMPT = 'The session was restarted while you were working. Continue the task where you left off.';

interface SavedState {
  /** A turn was sent and its result not yet seen: a resume continues it. */
  turnOpen: boolean;
  usage: TotalsByModel;
}

type Waiter = (answer: ApprovalDecision | undefined) => void;

/** One claude process with its SDK query; replaced once if a resume finds no conversation. */
interface Connection {
  process: ClaudeProcess;
  query: Query;
  input: InputQueue;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  resumed: boolean;
}

export class ClaudeRun implements AgentRun {
  readonly exited: Promise<{ error?: string | undefined }>;
  private resolveExited!: (value: { error?: string | undefined }) => void;
  private readonly normalizer: ClaudeNormalizer;
  private readonly stateFile: string;
  private saved: SavedState;
  private connection!: Connection;
  private identified: string | undefined;
  private turnActive = false;
  private interruptRequested = false;
  private closing = false;
  private readonly pendingReplies: string[] = [];
  private readonly approvals = new Map<string, Waiter>();
  private question: ((text: string | undefined) => void) | undefined;

  constructor(
    private readonly options: AgentStartOptions,
    private readonly emit: (event: AgentEvent) => void,
    private readonly claudePath: string,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.normalizer = new ClaudeNormalizer(options.cwd);
    mkdirSync(options.stateDir, { recursive: true });
    this.stateFile = join(options.stateDir, 'claude.json');
    this.saved = this.loadState();
  }

  /** The agent child's pid, for resource figures and tests. */
  get pid(): number | undefined {
    return this.connection.process.pid;
  }

  start(): void {
    const { options } = this;
    this.connection = this.connect(options.resumeId);
    if (options.resumeId === undefined) {
      this.startTurn(options.prompt);
      return;
    }
    this.identify(options.resumeId);
    if (this.saved.turnOpen) {
      this.startTurn(CONTINUE_PROMPT);
      return;
    }
    // The last turn had finished: say so in a turn of our own and wait for the next reply.
    this.emit({ type: 'turn.started' });
    this.emit({ type: 'message.added', role: 'assistant', text: 'Resumed the conversation; waiting for your reply.' });
    this.emit({ type: 'turn.completed', outcome: 'success' });
  }

  private connect(resumeId: string | undefined): Connection {
    const { options } = this;
    let markExit!: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void;
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => (markExit = resolve));
    const child = new ClaudeProcess({
      onMalformedLine: (reason, line) =>
        this.emit({ type: 'error.raised', message: `claude wrote a malformed output line (${reason})`, fatal: false, detail: line.slice(0, 500) }),
      onExit: (code, signal) => markExit({ code, signal }),
    });
    const input = new InputQueue();
    const connection: Connection = {
      process: child,
      input,
      exit,
      resumed: resumeId !== undefined,
      query: query({
        prompt: input,
        options: {
          pathToClaudeCodeExecutable: this.claudePath,
          spawnClaudeCodeProcess: child.spawn,
          cwd: options.cwd,
          env: options.env,
          ...(options.model === undefined ? {} : { model: options.model }),
          permissionMode: options.permissionMode,
          allowDangerouslySkipPermissions: options.permissionMode === 'bypassPermissions',
          // The user's and the project's settings must not widen what the session may do unasked.
          settingSources: [],
          canUseTool: this.canUseTool,
          ...(resumeId === undefined ? {} : { resume: resumeId }),
        },
      }),
    };
    this.consume(connection).catch((error: unknown) => log.error('claude message loop failed', { error: errorMessage(error) }));
    return connection;
  }

  async reply(text: string): Promise<void> {
    if (this.closing) return;
    if (this.question !== undefined) {
      const answer = this.question;
      this.question = undefined;
      answer(text);
      return;
    }
    if (this.turnActive) this.pendingReplies.push(text);
    else this.startTurn(text);
  }

  async resolveApproval(requestId: string, decision: ApprovalDecision): Promise<void> {
    const waiter = this.approvals.get(requestId);
    if (waiter === undefined) return;
    this.approvals.delete(requestId);
    waiter(decision);
  }

  async interrupt(): Promise<void> {
    if (!this.turnActive) return;
    this.interruptRequested = true;
    this.pendingReplies.length = 0;
    this.releaseWaiters();
    try {
      await this.connection.query.interrupt();
    } catch (error) {
      log.warn('interrupt failed', { error: errorMessage(error) });
    }
  }

  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.releaseWaiters();
      this.connection.input.end();
      this.connection.query.close();
      this.connection.process.killGroup('SIGTERM');
      const force = setTimeout(() => this.connection.process.killGroup('SIGKILL'), CLOSE_GRACE_MS);
      void this.exited.finally(() => clearTimeout(force));
    }
    await this.exited;
  }

  private startTurn(prompt: string): void {
    this.turnActive = true;
    this.interruptRequested = false;
    this.save({ turnOpen: true });
    this.emit({ type: 'turn.started', prompt });
    this.connection.input.push(prompt);
  }

  private async consume(connection: Connection): Promise<void> {
    let failure: string | undefined;
    try {
      for await (const message of connection.query) {
        if (connection === this.connection) this.handle(message);
      }
    } catch (error) {
      failure = errorMessage(error);
    }
    const exit = connection.process.pid === undefined ? undefined : await connection.exit;
    if (connection === this.connection) this.finish(failure, exit);
  }

  private handle(message: SDKMessage): void {
    switch (message.type) {
      case 'system':
        if (message.subtype === 'init') this.identify(message.session_id);
        else if (message.subtype === 'api_retry') this.emit(this.normalizer.apiRetry(message));
        return;
      case 'assistant':
        this.normalizer.assistant(message).forEach(this.emit);
        return;
      case 'user':
        this.normalizer.user(message).forEach(this.emit);
        return;
      case 'result':
        this.completeTurn(message);
        return;
      default:
        return;
    }
  }

  private identify(sessionId: string): void {
    if (sessionId === this.identified || sessionId === '') return;
    this.identified = sessionId;
    this.emit({ type: 'agent.identified', agentSessionId: sessionId });
  }

  private completeTurn(result: SDKResultMessage): void {
    if (this.connection.resumed && isMissingConversation(result)) {
      this.startAfresh();
      return;
    }
    this.connection.resumed = false;
    this.normalizer.closeOpenTools('the turn ended before the tool finished').forEach(this.emit);
    const usage = usageDeltas(this.saved.usage, result.modelUsage);
    usage.events.forEach(this.emit);
    const outcome = turnOutcome(result, this.interruptRequested);
    this.turnActive = false;
    this.interruptRequested = false;
    this.save({ turnOpen: false, usage: usage.totals });
    this.emit(outcome);
    const next = this.pendingReplies.shift();
    if (next !== undefined && !this.closing) this.startTurn(next);
  }

  /**
   * Claude writes its transcript a moment after each message, so a process killed right after
   * starting may leave nothing to resume. Rather than fail the respawn, start the task again in a
   * new conversation and say so.
   */
  private startAfresh(): void {
    const stale = this.connection;
    this.emit({
      type: 'error.raised',
      message: `The conversation ${this.identified ?? ''} could not be resumed (claude has no transcript of it); starting the task again in a new conversation.`,
      fatal: false,
    });
    this.connection = this.connect(undefined);
    stale.input.end();
    stale.query.close();
    this.turnActive = false;
    this.startTurn(this.options.prompt);
  }

  /** The CLI is gone: a close we asked for, or a crash. */
  private finish(failure: string | undefined, exit: { code: number | null; signal: NodeJS.Signals | null } | undefined): void {
    if (this.closing) {
      this.resolveExited({});
      return;
    }
    const crashed = failure !== undefined || this.turnActive || (exit !== undefined && (exit.code !== 0 || exit.signal !== null));
    if (!crashed) {
      this.resolveExited({});
      return;
    }
    const how = exit === undefined ? 'stopped' : exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const stderr = this.connection.process.stderr;
    const error = `claude ${how}${failure === undefined ? '' : `: ${failure}`}`;
    this.releaseWaiters();
    if (this.turnActive) {
      this.normalizer.closeOpenTools(error).forEach(this.emit);
      this.turnActive = false;
      this.emit({ type: 'turn.completed', outcome: 'error', error });
    }
    this.emit({ type: 'error.raised', message: error, fatal: true, ...(stderr === '' ? {} : { detail: stderr.slice(-2_000) }) });
    this.resolveExited({ error });
  }

  private readonly canUseTool: CanUseTool = async (toolName, input, context): Promise<PermissionResult> => {
    if (toolName === 'AskUserQuestion') return this.askUser(input, context.signal);
    const requestId = context.toolUseID;
    const reason = context.title ?? context.decisionReason ?? (context.blockedPath === undefined ? undefined : `touches ${context.blockedPath}`);
    const decision = await new Promise<ApprovalDecision | undefined>((resolve) => {
      this.approvals.set(requestId, resolve);
      context.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      this.emit({
        type: 'approval.requested',
        requestId,
        tool: toolName,
        input: describeToolInput(toolName, input),
        ...(reason === undefined ? {} : { reason }),
      });
    });
    this.approvals.delete(requestId);
    if (decision === undefined) return { behavior: 'deny', message: 'The user interrupted the turn.', interrupt: true };
    if (decision.decision === 'allow') return { behavior: 'allow', updatedInput: input };
    const why = decision.reason === undefined || decision.reason === '' ? '' : ` Reason: ${decision.reason}`;
    return { behavior: 'deny', message: `The user denied this ${toolName} call.${why}` };
  };

  /** Claude's own question tool: the question goes to the user, the next reply answers it. */
  private async askUser(input: Record<string, unknown>, signal: AbortSignal): Promise<PermissionResult> {
    const questions = questionTexts(input);
    const answer = await new Promise<string | undefined>((resolve) => {
      this.question = resolve;
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
      this.emit({ type: 'question.asked', text: questions.join('\n') });
    });
    this.question = undefined;
    if (answer === undefined) return { behavior: 'deny', message: 'The user interrupted the turn.', interrupt: true };
    const answers = Object.fromEntries(questions.map((q) => [q, answer]));
    return { behavior: 'allow', updatedInput: { ...input, answers } };
  }

  private releaseWaiters(): void {
    const approvals = [...this.approvals.values()];
    this.approvals.clear();
    approvals.forEach((waiter) => waiter(undefined));
    const question = this.question;
    this.question = undefined;
    question?.(undefined);
  }

  private loadState(): SavedState {
    const fresh: SavedState = { turnOpen: false, usage: {} };
    if (!existsSync(this.stateFile)) return fresh;
    try {
      return { ...fresh, ...(JSON.parse(readFileSync(this.stateFile, 'utf8')) as Partial<SavedState>) };
    } catch (error) {
      log.warn('unreadable claude state; starting afresh', { file: this.stateFile, error: errorMessage(error) });
      return fresh;
    }
  }

  private save(change: Partial<SavedState>): void {
    this.saved = { ...this.saved, ...change };
    writeFileSync(this.stateFile, JSON.stringify(this.saved));
  }
}

function isMissingConversation(result: SDKResultMessage): boolean {
  const text = result.subtype === 'success' ? result.result : result.errors.join('\n');
  return result.is_error && text.includes('No conversation found');
}

function questionTexts(input: Record<string, unknown>): string[] {
  const questions = Array.isArray(input.questions) ? (input.questions as unknown[]) : [];
  const texts = questions.flatMap((q) => {
    const text = (q as { question?: unknown } | null)?.question;
    return typeof text === 'string' ? [text] : [];
  });
  return texts.length > 0 ? texts : ['Claude asked a question.'];
}
