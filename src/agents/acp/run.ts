/**
 * One running ACP agent conversation, on the official SDK's client over the agent's stdio. The
 * shared turn loop (`../conversation.ts`) decides when a prompt is sent; this file speaks ACP:
 * `initialize`, `session/new` (or `session/load` to resume, where the agent offers it),
 * `session/prompt` per turn, `session/update` notifications, `session/request_permission`
 * requests and `session/cancel`. A turn ends when, and only when, its `session/prompt` answers
 * with a `stopReason` (or fails): no timer and no output text decides a state.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientConnection,
  type InitializeResponse,
  type NewSessionResponse,
  type PromptResponse,
} from '@agentclientprotocol/sdk';
import { errorMessage } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import { NO_SANDBOX } from '../../sandbox/index.js';
import { descendantsOf, signalAll } from '../../shared/process.js';
import { Conversation, type TurnDriver } from '../conversation.js';
import type { AgentEvent, AgentRun, AgentStartOptions, ApprovalDecision } from '../types.js';
import { acpMcpServers } from './mcp.js';
import { AcpNormalizer } from './normalize.js';
import { AcpPermissions, type PermissionRequest } from './permissions.js';
import type { AcpAgentEntry } from './registry.js';
import { stopOutcome, turnUsage, type AcpUsageState } from './turn.js';

const log = createLogger('agent.acp');
const STDERR_TAIL = 4_000;

export class AcpRun implements AgentRun, TurnDriver {
  private readonly turns: Conversation<AcpUsageState>;
  private child!: ChildProcess;
  private connection!: ClientConnection;
  private readonly normalizer: AcpNormalizer;
  private readonly permissions: AcpPermissions;
  private sessionId: string | undefined;
  /** True while `session/load` replays the old conversation: its updates are history, not news. */
  private replaying = false;
  /** The model the session runs, as the agent named it, for pricing usage. */
  private model: string | undefined;
  private stderrTail = '';
  /** The processes below the agent when the current turn was sent. */
  private beforeTurn = new Set<number>();
  /** Baton's instructions go with the first prompt the agent sees (ACP has no system prompt). */
  private instructionsSent = false;

  constructor(
    private readonly options: AgentStartOptions,
    private readonly emit: (event: AgentEvent) => void,
    private readonly entry: AcpAgentEntry,
    private readonly executable: string,
  ) {
    this.turns = new Conversation({
      agent: `acp-${entry.name}`,
      start: options,
      emit,
      initialState: { costUsd: 0 },
      ready: false,
    });
    this.normalizer = new AcpNormalizer(options.cwd);
    this.permissions = new AcpPermissions(emit, options.gate, options.permissionMode, options.cwd);
  }

  get exited(): Promise<{ error?: string | undefined }> {
    return this.turns.exited;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  start(): void {
    const { command, args } = this.options.sandbox?.wrap(this.executable, this.entry.args) ?? {
      command: this.executable,
      args: this.entry.args,
    };
    this.child = spawn(command, args, {
      cwd: this.options.cwd,
      env: { ...this.options.env, ...this.entry.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so ending the agent also ends the commands it is running.
      detached: true,
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.child.on('error', (error) =>
      log.warn('agent process error', { agent: this.entry.name, error: error.message }),
    );
    this.child.on('exit', () => this.killGroup('SIGKILL'));
    this.child.on('close', (code, signal) => this.finish(code, signal));
    this.connection = client()
      .onNotification('session/update', ({ params }) => this.onUpdate(params))
      .onRequest('session/request_permission', ({ params }) => this.onPermission(params))
      .connect(
        ndJsonStream(
          Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
          Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>,
        ),
      );
    this.turns.begin(this);
    this.boot().catch((error: unknown) => this.failToStart(errorMessage(error)));
  }

  async reply(text: string): Promise<void> {
    this.turns.reply(text);
  }

  async resolveApproval(requestId: string, decision: ApprovalDecision): Promise<void> {
    this.permissions.resolve(requestId, decision);
  }

  interrupt(): Promise<void> {
    return this.turns.interrupt();
  }

  close(): Promise<void> {
    return this.turns.close();
  }

  // ── TurnDriver ─────────────────────────────────────────────────────────────

  sendTurn(prompt: string): void {
    const sessionId = this.sessionId;
    if (sessionId === undefined) return;
    this.beforeTurn = new Set(this.offspring());
    const blocks = [{ type: 'text' as const, text: prompt }];
    const instructions = this.options.instructions;
    if (!this.instructionsSent && instructions !== undefined && instructions !== '') {
      blocks.unshift({ type: 'text', text: `<baton_instructions>\n${instructions}\n</baton_instructions>` });
      this.instructionsSent = true;
    }
    this.connection.agent.request<PromptResponse>('session/prompt', { sessionId, prompt: blocks }).then(
      (response) => this.turnEnded(response),
      (error: unknown) => {
        if (!this.turns.turnActive || this.turns.closing) return;
        this.normalizer.flush().forEach(this.emit);
        if (this.turns.interruptRequested)
          this.turns.completeTurn({ type: 'turn.completed', outcome: 'interrupted' });
        else
          this.turns.completeTurn({
            type: 'turn.completed',
            outcome: 'error',
            error: `${this.entry.title}: ${describeRpcError(error)}`,
          });
      },
    );
  }

  async interruptTurn(): Promise<void> {
    const sessionId = this.sessionId;
    if (sessionId === undefined) return;
    try {
      await this.connection.agent.notify('session/cancel', { sessionId });
    } catch (error) {
      log.warn('session/cancel failed', { error: errorMessage(error) });
    }
    // What the turn started goes with it; what was there before (MCP servers) stays.
    signalAll(
      this.offspring().filter((pid) => !this.beforeTurn.has(pid)),
      'SIGKILL',
    );
  }

  shutDown(): void {
    this.connection.close();
    this.child.stdin?.end();
    signalAll(this.offspring(), 'SIGTERM');
    this.killGroup('SIGTERM');
  }

  kill(): void {
    signalAll(this.offspring(), 'SIGKILL');
    this.killGroup('SIGKILL');
  }

  closeOpenTools(why: string): AgentEvent[] {
    return this.normalizer.closeOpenTools(why);
  }

  releaseWaiters(): void {
    this.permissions.cancelAll();
  }

  // ── the agent's messages ───────────────────────────────────────────────────

  private async boot(): Promise<void> {
    const init = await this.connection.agent.request<InitializeResponse>('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      // No file-system or terminal methods: the agent works on the worktree itself, inside
      // Baton's sandbox, and asks before it edits or runs (decision 240).
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'baton', title: 'Baton', version: '0.1.0' },
    });
    const mcpServers = acpMcpServers(
      this.options.batonMcp,
      init.agentCapabilities?.mcpCapabilities?.http === true,
    );
    const resumeId = this.options.resumeId;
    const loaded =
      resumeId !== undefined && init.agentCapabilities?.loadSession === true
        ? await this.load(resumeId, mcpServers)
        : false;
    if (!loaded) {
      if (resumeId !== undefined && init.agentCapabilities?.loadSession !== true)
        this.emit({
          type: 'error.raised',
          message: `${this.entry.title} cannot load an earlier session over ACP; this is a new conversation`,
          fatal: false,
        });
      const created = await this.connection.agent.request<NewSessionResponse>('session/new', {
        cwd: this.options.cwd,
        mcpServers,
      });
      this.sessionId = created.sessionId;
      this.model = currentModel(created);
    }
    if (this.options.model !== undefined) await this.chooseModel(this.options.model);
    this.turns.identify(this.sessionId!);
    this.turns.ready();
  }

  /**
   * `session/load`: the agent replays the conversation as updates (history, not news: dropped)
   * and then takes turns in it. A load the agent refuses is said, and the session goes on in a
   * new conversation rather than failing: the work in the worktree is still there.
   */
  private async load(sessionId: string, mcpServers: ReturnType<typeof acpMcpServers>): Promise<boolean> {
    this.replaying = true;
    this.sessionId = sessionId;
    try {
      const loaded = await this.connection.agent.request('session/load', {
        sessionId,
        cwd: this.options.cwd,
        mcpServers,
      });
      this.model = currentModel(loaded);
      return true;
    } catch (error) {
      this.sessionId = undefined;
      this.emit({
        type: 'error.raised',
        message: `${this.entry.title} could not load its session ${sessionId} (${describeRpcError(error)}); this is a new conversation`,
        fatal: false,
      });
      return false;
    } finally {
      this.replaying = false;
    }
  }

  /** The model asked for at dispatch, through the session's `model` option where the agent has one. */
  private async chooseModel(model: string): Promise<void> {
    try {
      await this.connection.agent.request('session/set_config_option', {
        sessionId: this.sessionId!,
        configId: 'model',
        value: model,
      });
      this.model = model;
    } catch (error) {
      this.emit({
        type: 'error.raised',
        message: `${this.entry.title} did not take the model ${model}; it runs its own default`,
        fatal: false,
        detail: describeRpcError(error),
      });
    }
  }

  private onUpdate(params: { sessionId: string; update: { sessionUpdate: string } }): void {
    if (this.replaying || params.sessionId !== this.sessionId) return;
    const update = params.update as { sessionUpdate: string } & Record<string, unknown>;
    if (update.sessionUpdate === 'usage_update') {
      const cost = update.cost as { amount?: unknown; currency?: unknown } | null | undefined;
      if (cost?.currency === 'USD' && typeof cost.amount === 'number') this.costSeen = cost.amount;
      return;
    }
    this.normalizer.update(update).forEach(this.emit);
  }

  /** The agent's running cost as it last reported it (`usage_update`), in USD. */
  private costSeen: number | undefined;

  private onPermission(params: PermissionRequest & { sessionId: string }): Promise<never> {
    if (params.sessionId !== this.sessionId || !this.turns.turnActive)
      return Promise.resolve({ outcome: { outcome: 'cancelled' } }) as Promise<never>;
    this.normalizer.toolAsked(params.toolCall).forEach(this.emit);
    return this.permissions.ask(params) as Promise<never>;
  }

  private turnEnded(response: PromptResponse & { usage?: unknown }): void {
    if (!this.turns.turnActive) return;
    this.normalizer.flush().forEach(this.emit);
    const usage = turnUsage(response, this.model, this.turns.state, this.costSeen);
    if (usage.event !== undefined) this.emit(usage.event);
    this.turns.completeTurn(
      stopOutcome(response.stopReason, this.turns.interruptRequested, this.entry.title),
      usage.state,
    );
  }

  private failToStart(message: string): void {
    if (this.turns.closing) return;
    this.emit({
      type: 'error.raised',
      message: `${this.entry.title} could not start the conversation: ${message}`,
      fatal: true,
      detail: this.stderrTail.trim().slice(-2_000) || undefined,
    });
    this.turns.completeTurn({ type: 'turn.completed', outcome: 'error', error: message });
    void this.close();
  }

  /** The process is gone: a close we asked for, or a crash. */
  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    this.connection.close();
    if (this.turns.closing) {
      this.turns.ended();
      return;
    }
    this.turns.crashed(
      signal !== null
        ? `${this.entry.command} was killed by ${signal}`
        : `${this.entry.command} exited with code ${code ?? '?'}`,
      this.stderrTail.trim(),
    );
  }

  /** Every process the agent started and that still runs. */
  private offspring(): number[] {
    return this.child.pid === undefined ? [] : descendantsOf(this.child.pid);
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    (this.options.sandbox ?? NO_SANDBOX).signalGroup(pid, signal);
  }
}

/** The model a `session/new` or `session/load` answer names: its model option, or its current model. */
function currentModel(response: unknown): string | undefined {
  const r = response as {
    configOptions?: { id?: string; currentValue?: unknown }[] | null;
    models?: { currentModelId?: string } | null;
  };
  const option = r.configOptions?.find((o) => o.id === 'model')?.currentValue;
  if (typeof option === 'string') return option;
  return r.models?.currentModelId ?? undefined;
}

/** A JSON-RPC error as one line: its message and, when the agent gave one, its detail. */
export function describeRpcError(error: unknown): string {
  const e = error as { message?: unknown; data?: unknown };
  const message = typeof e?.message === 'string' ? e.message : errorMessage(error);
  const data = e?.data;
  const detail =
    typeof data === 'string'
      ? data
      : typeof (data as { details?: unknown } | null)?.details === 'string'
        ? (data as { details: string }).details
        : typeof (data as { message?: unknown } | null)?.message === 'string'
          ? (data as { message: string }).message
          : undefined;
  return detail === undefined || detail === message ? message : `${message}: ${detail}`;
}
