/**
 * One running Claude Code conversation, driven through the Agent SDK's `query()` with streaming
 * input. The shared turn loop (`../conversation.ts`) decides when a prompt is sent; this file
 * speaks the SDK: each turn ends with the CLI's `result`, approvals and questions go through
 * `canUseTool`.
 */
import {
  query,
  type Query,
  type SDKMessage,
  type SDKRateLimitInfo,
  type SDKResultMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { DANGEROUS_PERMISSION_MODE } from '../../events/vocabulary.js';
import { errorMessage } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import { Conversation, type TurnDriver } from '../conversation.js';
import type { AgentEvent, AgentRun, AgentStartOptions, ApprovalDecision } from '../types.js';
import { ClaudeApprovals } from './approvals.js';
import { InputQueue } from './input.js';
import { claudeMcpOptions } from './mcp.js';
import { ClaudeNormalizer, limitOf, limitsEvent, turnOutcome } from './normalize.js';
import { ClaudeProcess } from './process.js';
import { ClaudeUsage, type ClaudeUsageState } from './usage.js';

export { CONTINUE_PROMPT } from '../conversation.js';

const log = createLogger('agent.claude');
const HELD_APPROVAL_SECONDS = 24 * 3600;

/** One claude process with its SDK query; replaced once if a resume finds no conversation. */
interface Connection {
  process: ClaudeProcess;
  query: Query;
  input: InputQueue;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  resumed: boolean;
}

export class ClaudeRun implements AgentRun, TurnDriver {
  private readonly turns: Conversation<ClaudeUsageState>;
  private readonly normalizer: ClaudeNormalizer;
  private readonly asks: ClaudeApprovals;
  private readonly usage = new ClaudeUsage();
  /** A `rate_limit_event` that said `rejected` during this turn: the limit its failure is (decision 262). */
  private rejected: SDKRateLimitInfo | undefined;
  private connection!: Connection;

  constructor(
    private readonly options: AgentStartOptions,
    private readonly emit: (event: AgentEvent) => void,
    private readonly claudePath: string,
  ) {
    this.turns = new Conversation({
      agent: 'claude',
      start: options,
      emit,
      initialState: { usage: {} },
      ready: true,
    });
    this.normalizer = new ClaudeNormalizer(options.cwd);
    this.asks = new ClaudeApprovals(emit, options.gate);
  }

  get exited(): Promise<{ error?: string | undefined }> {
    return this.turns.exited;
  }

  /** The agent child's pid, for resource figures and tests. */
  get pid(): number | undefined {
    return this.connection.process.pid;
  }

  start(): void {
    this.connection = this.connect(this.options.resumeId);
    if (this.options.resumeId !== undefined) this.turns.identify(this.options.resumeId);
    this.turns.begin(this);
  }

  private connect(resumeId: string | undefined): Connection {
    const { options } = this;
    let markExit!: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void;
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve) => (markExit = resolve),
    );
    const child = new ClaudeProcess({
      onMalformedLine: (reason, line) =>
        this.emit({
          type: 'error.raised',
          message: `claude wrote a malformed output line (${reason})`,
          fatal: false,
          detail: line.slice(0, 500),
        }),
      onExit: (code, signal) => markExit({ code, signal }),
      sandbox: options.sandbox,
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
          allowDangerouslySkipPermissions: options.permissionMode === DANGEROUS_PERMISSION_MODE,
          // The user's own Claude Code: CLAUDE.md, settings rules, hooks, skills and MCP servers (decision 58).
          settingSources: claudeSettingSources(options.settingSources),
          systemPrompt:
            options.instructions === undefined
              ? { type: 'preset', preset: 'claude_code' }
              : { type: 'preset', preset: 'claude_code', append: options.instructions },
          canUseTool: this.asks.canUseTool,
          ...claudeMcpOptions(options.batonMcp),
          // The gate sees every call, bypassPermissions included; a held approval may wait a day.
          hooks: { PreToolUse: [{ hooks: [this.asks.preToolUse], timeout: HELD_APPROVAL_SECONDS }] },
          ...(resumeId === undefined ? {} : { resume: resumeId }),
        },
      }),
    };
    this.consume(connection).catch((error: unknown) =>
      log.error('claude message loop failed', { error: errorMessage(error) }),
    );
    return connection;
  }

  async reply(text: string): Promise<void> {
    if (!this.turns.closing && !this.asks.answer(text)) this.turns.reply(text);
  }

  async resolveApproval(requestId: string, decision: ApprovalDecision): Promise<void> {
    this.asks.resolve(requestId, decision);
  }

  interrupt(): Promise<void> {
    return this.turns.interrupt();
  }

  close(): Promise<void> {
    return this.turns.close();
  }

  // ── TurnDriver ─────────────────────────────────────────────────────────────

  sendTurn(prompt: string): void {
    this.connection.input.push(prompt);
  }

  async interruptTurn(): Promise<void> {
    try {
      await this.connection.query.interrupt();
    } catch (error) {
      log.warn('interrupt failed', { error: errorMessage(error) });
    }
  }

  shutDown(): void {
    this.connection.input.end();
    this.connection.query.close();
    this.connection.process.killGroup('SIGTERM');
  }

  kill(): void {
    this.connection.process.killGroup('SIGKILL');
  }

  closeOpenTools(why: string): AgentEvent[] {
    return this.normalizer.closeOpenTools(why);
  }

  releaseWaiters(): void {
    this.asks.release();
  }

  // ── the SDK's messages ─────────────────────────────────────────────────────

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
        if (message.subtype === 'init') this.turns.identify(message.session_id);
        else if (message.subtype === 'api_retry') this.emit(this.normalizer.apiRetry(message));
        return;
      case 'assistant': {
        // Reported before the blocks: a budget the response crosses stops the tool it asks for.
        const usage = this.usage.responseStarted(message, this.turns.state.reported);
        if (usage !== undefined) {
          // Saved first: a turn stopped before its result must not count this response again.
          this.turns.save({ reported: usage.reported });
          this.emit(usage.event);
        }
        this.normalizer.assistant(message).forEach(this.emit);
        return;
      }
      case 'rate_limit_event': {
        const limits = limitsEvent(message.rate_limit_info);
        if (limits !== undefined) this.emit(limits);
        // A rejection ends the turn at the limit: its result then pauses the session (decision 262).
        if (message.rate_limit_info.status === 'rejected') this.rejected = message.rate_limit_info;
        return;
      }
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

  private completeTurn(result: SDKResultMessage): void {
    if (this.connection.resumed && isMissingConversation(result)) {
      this.startAfresh();
      return;
    }
    this.connection.resumed = false;
    const ended = turnOutcome(result, this.turns.interruptRequested);
    const limit = ended.outcome === 'error' ? limitOf(result, this.rejected) : undefined;
    this.rejected = undefined;
    const outcome = limit === undefined ? ended : { ...ended, limit };
    const usage = this.usage.turnEnded(this.turns.state, result.modelUsage);
    usage.events.forEach(this.emit);
    this.turns.completeTurn(outcome, { usage: usage.totals, reported: {} });
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
      message: `The conversation ${this.turns.agentSessionId ?? ''} could not be resumed (claude has no transcript of it); starting the task again in a new conversation.`,
      fatal: false,
    });
    this.connection = this.connect(undefined);
    stale.input.end();
    stale.query.close();
    this.turns.startTurn(this.options.prompt);
  }

  /** The CLI is gone: a close we asked for, or a crash. */
  private finish(
    failure: string | undefined,
    exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  ): void {
    const crashed =
      failure !== undefined ||
      this.turns.turnActive ||
      (exit !== undefined && (exit.code !== 0 || exit.signal !== null));
    if (this.turns.closing || !crashed) {
      this.turns.ended();
      return;
    }
    const how =
      exit === undefined
        ? 'stopped'
        : exit.signal !== null
          ? `was killed by ${exit.signal}`
          : `exited with code ${exit.code}`;
    // The SDK's own "Claude Code process exited with code 1" only repeats the exit: the reason is in stderr.
    const said = failure === undefined || /process exited with code \d+$/.test(failure) ? undefined : failure;
    this.turns.crashed(
      `claude ${how}${said === undefined ? '' : `: ${said}`}`,
      this.connection.process.stderr,
    );
  }
}

type SettingSource = 'user' | 'project' | 'local';
const ALL_SOURCES: readonly SettingSource[] = ['user', 'project', 'local'];

/** What the `claude` CLI itself loads unless the repository's config narrows it. */
export function claudeSettingSources(sources: readonly string[] | undefined): SettingSource[] {
  if (sources === undefined) return [...ALL_SOURCES];
  return ALL_SOURCES.filter((s) => sources.includes(s));
}

function isMissingConversation(result: SDKResultMessage): boolean {
  const text = result.subtype === 'success' ? result.result : result.errors.join('\n');
  return result.is_error && text.includes('No conversation found');
}
