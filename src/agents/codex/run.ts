/**
 * One running Codex conversation (a thread) on `codex app-server`. The shared turn loop
 * (`../conversation.ts`) decides when a prompt is sent; this file speaks the app-server's
 * JSON-RPC: thread start or resume, turns, item notifications and approval requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { DANGEROUS_PERMISSION_MODE } from '../../events/vocabulary.js';
import { errorMessage } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import { NO_SANDBOX } from '../../sandbox/index.js';
import { descendantsOf, signalAll } from '../../shared/process.js';
import { Conversation, type TurnDriver } from '../conversation.js';
import type { AgentEvent, AgentRun, AgentStartOptions, ApprovalDecision } from '../types.js';
import { CodexApprovals } from './approvals.js';
import { CodexNormalizer, describeError, limitOf, limitsEvent } from './normalize.js';
import { responseUsage, threadUsage, type CodexUsageState } from './usage.js';
import { Notifications, RateLimitsReadResponse, ThreadResponse, TurnResponse } from './protocol.js';
import { RpcConnection } from './rpc.js';
import { BatonMcpStartup, codexMcpArgs } from './mcp.js';
import { codexSetup, type CodexSetup } from './setup.js';

export { CONTINUE_PROMPT } from '../conversation.js';

const log = createLogger('agent.codex');
const STDERR_TAIL = 4_000;

export class CodexRun implements AgentRun, TurnDriver {
  private readonly turns: Conversation<CodexUsageState>;
  private child!: ChildProcess;
  private rpc!: RpcConnection;
  private readonly normalizer: CodexNormalizer;
  private threadId: string | undefined;
  private turnId: string | undefined;
  /** The model the thread runs (codex's answer to thread/start), for pricing usage. */
  private model: string | undefined;
  /** The account's windows as last reported: which one a usage-limit error ran out (decision 262). */
  private windows: { name: string; usedPercent: number; resetsAt?: string | undefined }[] = [];
  private readonly approvals: CodexApprovals;
  private stderrTail = '';
  /** The processes below codex when the current turn was sent. */
  private beforeTurn = new Set<number>();
  private readonly setup: CodexSetup;
  /** The first turn waits for Baton's MCP server, so the model's first request already has its tools. */
  private readonly batonMcp: BatonMcpStartup;

  constructor(
    private readonly options: AgentStartOptions,
    private readonly emit: (event: AgentEvent) => void,
    private readonly codexPath: string,
  ) {
    // Not ready until the thread is started or resumed: a prompt before that waits.
    this.turns = new Conversation({
      agent: 'codex',
      start: options,
      emit,
      initialState: { usage: { input: 0, cached: 0, output: 0 } },
      ready: false,
    });
    this.normalizer = new CodexNormalizer(options.cwd);
    this.setup = codexSetup(options.settingSources, options.env, options.stateDir);
    this.batonMcp = new BatonMcpStartup(
      options.batonMcp !== undefined,
      () => this.turns.ready(),
      (message) => emit({ type: 'error.raised', message, fatal: false }),
    );
    this.approvals = new CodexApprovals(
      () => this.rpc,
      emit,
      (itemId) => this.normalizer.filesOf(itemId),
      options.gate,
      options.permissionMode === DANGEROUS_PERMISSION_MODE,
    );
  }

  get exited(): Promise<{ error?: string | undefined }> {
    return this.turns.exited;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  start(): void {
    // In the session's sandbox: codex, the commands it runs and Baton's MCP server it starts (decision 163).
    const args = ['app-server', ...codexMcpArgs(this.options.batonMcp)];
    const { command, args: wrapped } = this.options.sandbox?.wrap(this.codexPath, args) ?? {
      command: this.codexPath,
      args,
    };
    this.child = spawn(command, wrapped, {
      cwd: this.options.cwd,
      env: this.setup.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so ending the agent also ends the commands it is running.
      detached: true,
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.child.on('error', (error) => log.warn('codex process error', { error: error.message }));
    this.child.on('exit', () => this.killGroup('SIGKILL'));
    this.child.on('close', (code, signal) => this.finish(code, signal));
    this.rpc = new RpcConnection(this.child, {
      onNotification: (method, params) => this.onNotification(method, params),
      onRequest: (id, method, params) => this.onRequest(id, method, params),
      onMalformed: (reason, line) =>
        this.emit({
          type: 'error.raised',
          message: `codex wrote a malformed output line (${reason})`,
          fatal: false,
          detail: line.slice(0, 500),
        }),
    });
    this.turns.begin(this);
    this.boot().catch((error: unknown) => this.failToStart(errorMessage(error)));
  }

  async reply(text: string): Promise<void> {
    this.turns.reply(text);
  }

  async resolveApproval(requestId: string, decision: ApprovalDecision): Promise<void> {
    await this.approvals.resolve(requestId, decision);
  }

  interrupt(): Promise<void> {
    return this.turns.interrupt();
  }

  close(): Promise<void> {
    return this.turns.close();
  }

  // ── TurnDriver ─────────────────────────────────────────────────────────────

  sendTurn(prompt: string): void {
    this.turnId = undefined;
    this.beforeTurn = new Set(this.offspring());
    const params = { threadId: this.threadId, input: [{ type: 'text', text: prompt, text_elements: [] }] };
    this.rpc.request('turn/start', params).then(
      (response) => {
        this.turnId ??= TurnResponse.parse(response).turn.id;
        if (this.turns.interruptRequested) void this.interruptTurn();
      },
      (error: unknown) => {
        if (!this.turns.turnActive || this.turns.closing) return;
        this.turns.completeTurn({
          type: 'turn.completed',
          outcome: 'error',
          error: `codex refused the turn: ${errorMessage(error)}`,
        });
      },
    );
  }

  async interruptTurn(): Promise<void> {
    if (this.threadId === undefined || this.turnId === undefined) return;
    try {
      await this.rpc.request('turn/interrupt', { threadId: this.threadId, turnId: this.turnId });
    } catch (error) {
      log.warn('turn/interrupt failed', { error: errorMessage(error) });
    }
    // Codex ends the turn but leaves its commands running (in sandboxes outside our process
    // group): what the turn started goes with it, what was there before (MCP servers) stays.
    signalAll(
      this.offspring().filter((pid) => !this.beforeTurn.has(pid)),
      'SIGKILL',
    );
  }

  shutDown(): void {
    this.rpc.close('the session was closed');
    this.child.stdin?.end();
    signalAll(this.offspring(), 'SIGTERM');
    this.killGroup('SIGTERM');
  }

  kill(): void {
    signalAll(this.offspring(), 'SIGKILL');
    this.killGroup('SIGKILL');
  }

  /** Every process codex started and that still runs, sandboxed commands (own sessions) included. */
  private offspring(): number[] {
    return this.child.pid === undefined ? [] : descendantsOf(this.child.pid);
  }

  closeOpenTools(why: string): AgentEvent[] {
    return this.normalizer.closeOpenTools(why);
  }

  releaseWaiters(): void {
    this.approvals.cancelAll();
  }

  // ── the app-server's messages ──────────────────────────────────────────────

  private async boot(): Promise<void> {
    await this.rpc.request('initialize', {
      clientInfo: { name: 'baton', title: 'Baton', version: '0.1.0' },
      // The experimental API for experimentalRawEvents alone (each response's usage: ./usage.ts).
      capabilities: { experimentalApi: true, requestAttestation: false },
    });
    this.rpc.notify('initialized');
    const settings = this.threadSettings();
    const resumeId = this.options.resumeId;
    // Raw events bring each response's usage at once (./usage.ts); thread/resume cannot ask for them.
    const response =
      resumeId === undefined
        ? await this.rpc.request('thread/start', { ...settings, experimentalRawEvents: true })
        : await this.rpc.request('thread/resume', { ...settings, threadId: resumeId });
    const thread = ThreadResponse.parse(response);
    this.threadId = thread.thread.id;
    // Usage is priced by model (src/usage): codex names the one it chose when none was asked for.
    this.model = thread.model ?? this.options.model;
    this.turns.identify(this.threadId);
    this.batonMcp.threadStarted();
    this.readWindows();
  }

  /**
   * The account's windows before any turn (`account/rateLimits/read`), so admission by window
   * (decision 300) knows them from the start; later replies update them by notification. An API
   * key has no subscription windows: codex answers an error, which says nothing.
   */
  private readWindows(): void {
    this.rpc.request('account/rateLimits/read', undefined).then(
      (response) => {
        const parsed = RateLimitsReadResponse.safeParse(response);
        const event = parsed.success ? limitsEvent(parsed.data.rateLimits) : undefined;
        // A notification that came first is newer than this answer.
        if (event?.type !== 'limits.reported' || this.windows.length > 0) return;
        this.windows = event.windows;
        this.emit(event);
      },
      () => undefined,
    );
  }

  /**
   * Approvals go to Baton; the sandbox keeps writes inside the worktree (not even /tmp). In bypass
   * mode nothing is sandboxed, and Codex asks about every command it does not know to be safe
   * (`untrusted`) so that the gate sees it; what the gate allows is accepted at once (decision 82).
   */
  private threadSettings(): Record<string, unknown> {
    const bypass = this.options.permissionMode === DANGEROUS_PERMISSION_MODE;
    return {
      cwd: this.options.cwd,
      ...(this.options.model === undefined ? {} : { model: this.options.model }),
      approvalPolicy: bypass ? 'untrusted' : 'on-request',
      sandbox: bypass ? 'danger-full-access' : 'workspace-write',
      config: {
        ...this.setup.config,
        sandbox_workspace_write: {
          network_access: false,
          exclude_slash_tmp: true,
          exclude_tmpdir_env_var: true,
        },
      },
      // Baton's own instructions go with the thread, never into the user's AGENTS.md.
      ...(this.options.instructions === undefined
        ? {}
        : { developerInstructions: this.options.instructions }),
    };
  }

  private onNotification(method: string, params: unknown): void {
    if (!(method in Notifications)) return;
    const schema = Notifications[method as keyof typeof Notifications];
    const parsed = schema.safeParse(params);
    if (!parsed.success) {
      this.emit({
        type: 'error.raised',
        message: `codex sent a malformed ${method} notification`,
        fatal: false,
        detail: JSON.stringify(params).slice(0, 500),
      });
      return;
    }
    const data = parsed.data;
    // May come before thread/start's answer names the thread.
    if (method === 'mcpServer/startupStatus/updated')
      return this.batonMcp.status(Notifications[method].parse(params));
    // Sub-agents run in threads of their own; only this thread's turn decides the state.
    if ('threadId' in data && data.threadId !== this.threadId) return;
    switch (method) {
      case 'turn/started':
      case 'turn/completed':
        this.onTurn(method, Notifications[method].parse(params));
        return;
      case 'item/started':
      case 'item/completed': {
        const { item } = Notifications[method].parse(params);
        const result =
          method === 'item/started' ? this.normalizer.itemStarted(item) : this.normalizer.itemCompleted(item);
        if (typeof result === 'string')
          this.emit({
            type: 'error.raised',
            message: `codex sent a malformed item: ${result}`,
            fatal: false,
            detail: JSON.stringify(item).slice(0, 500),
          });
        else result.forEach(this.emit);
        return;
      }
      case 'thread/tokenUsage/updated':
        return this.reportUsage(
          threadUsage(this.turns.state, Notifications[method].parse(params).tokenUsage, this.model),
        );
      case 'rawResponse/completed': {
        const { usage } = Notifications[method].parse(params);
        if (usage !== null && usage !== undefined)
          this.reportUsage(responseUsage(this.turns.state, usage, this.model));
        return;
      }
      case 'account/rateLimits/updated': {
        const event = limitsEvent(Notifications[method].parse(params).rateLimits);
        if (event !== undefined) {
          if (event.type === 'limits.reported') this.windows = event.windows;
          this.emit(event);
        }
        return;
      }
      case 'error': {
        const { error, willRetry } = Notifications.error.parse(params);
        this.emit({
          type: 'error.raised',
          message: `${describeError(error)}${willRetry ? ' (codex will retry)' : ''}`,
          fatal: false,
        });
        return;
      }
      default:
        return;
    }
  }

  private reportUsage({ event, state }: ReturnType<typeof threadUsage>): void {
    this.turns.save(state);
    if (event !== undefined) this.emit(event);
  }

  private onTurn(
    method: 'turn/started' | 'turn/completed',
    params: {
      turn: { id: string; status: string; error?: Parameters<typeof describeError>[0] | null | undefined };
    },
  ): void {
    if (method === 'turn/started') {
      this.turnId = params.turn.id;
      return;
    }
    const { turn } = params;
    if (turn.status === 'completed') this.turns.completeTurn({ type: 'turn.completed', outcome: 'success' });
    else if (turn.status === 'interrupted' || this.turns.interruptRequested)
      this.turns.completeTurn({ type: 'turn.completed', outcome: 'interrupted' });
    else {
      const limit = limitOf(turn.error, this.windows);
      this.turns.completeTurn({
        type: 'turn.completed',
        outcome: 'error',
        error: turn.error ? describeError(turn.error) : `the turn ended as ${turn.status}`,
        ...(limit === undefined ? {} : { limit }),
      });
    }
  }

  private onRequest(id: string | number, method: string, params: unknown): void {
    if (!this.approvals.request(id, method, params))
      this.rpc.respondError(id, -32601, `Baton does not handle ${method}`);
  }

  private failToStart(message: string): void {
    if (this.turns.closing) return;
    this.emit({
      type: 'error.raised',
      message: `codex could not start the conversation: ${message}`,
      fatal: true,
      detail: this.stderrTail.trim().slice(-2_000) || undefined,
    });
    this.turns.completeTurn({ type: 'turn.completed', outcome: 'error', error: message });
    void this.close();
  }

  /** The process is gone: a close we asked for, or a crash. */
  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    this.rpc.close('codex exited');
    if (this.turns.closing) {
      this.turns.ended();
      return;
    }
    this.turns.crashed(
      signal !== null ? `codex was killed by ${signal}` : `codex exited with code ${code ?? '?'}`,
      this.stderrTail.trim(),
    );
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // Through the sandbox: a SIGTERM to bubblewrap would kill codex before it saved its thread.
    (this.options.sandbox ?? NO_SANDBOX).signalGroup(pid, signal);
  }
}
