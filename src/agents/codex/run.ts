/**
 * One running Codex conversation (a thread) on `codex app-server`. Each prompt or reply is a
 * turn; replies sent while a turn runs wait for it to end, so every reply is a turn of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import type { AgentEvent, AgentRun, AgentStartOptions, ApprovalDecision } from '../types.js';
import { CodexNormalizer, COMMAND_TOOL, PATCH_TOOL, unwrapShell, usageDelta, type UsageTotal } from './normalize.js';
import {
  CommandApprovalParams,
  FileChangeApprovalParams,
  Notifications,
  ThreadResponse,
  TurnResponse,
  type ApprovalDecisionWire,
} from './protocol.js';
import { RpcConnection } from './rpc.js';

const log = createLogger('agent.codex');
const STDERR_TAIL = 4_000;
const CLOSE_GRACE_MS = 5_000;

/** Sent when a thread is resumed in the middle of a turn that never finished. */
export const CONTINUE_PROMPT = 'The session was restarted while you were working. Continue the task where you left off.';

interface SavedState {
  turnOpen: boolean;
  usage: UsageTotal;
}

export class CodexRun implements AgentRun {
  readonly exited: Promise<{ error?: string | undefined }>;
  private resolveExited!: (value: { error?: string | undefined }) => void;
  private child!: ChildProcess;
  private rpc!: RpcConnection;
  private readonly normalizer: CodexNormalizer;
  private readonly stateFile: string;
  private saved: SavedState;
  private threadId: string | undefined;
  private turnId: string | undefined;
  private turnActive = false;
  private interruptRequested = false;
  private closing = false;
  private readonly pendingReplies: string[] = [];
  /** Pending approvals: our request id → the server's JSON-RPC id. */
  private readonly approvals = new Map<string, string | number>();
  private stderrTail = '';

  constructor(
    private readonly options: AgentStartOptions,
    private readonly emit: (event: AgentEvent) => void,
    private readonly codexPath: string,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.normalizer = new CodexNormalizer(options.cwd);
    mkdirSync(options.stateDir, { recursive: true });
    this.stateFile = join(options.stateDir, 'codex.json');
    this.saved = this.loadState();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  start(): void {
    this.child = spawn(this.codexPath, ['app-server'], {
      cwd: this.options.cwd,
      env: this.options.env,
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
        this.emit({ type: 'error.raised', message: `codex wrote a malformed output line (${reason})`, fatal: false, detail: line.slice(0, 500) }),
    });

    const resuming = this.options.resumeId !== undefined;
    const prompt = !resuming ? this.options.prompt : this.saved.turnOpen ? CONTINUE_PROMPT : undefined;
    if (prompt !== undefined) this.beginTurn(prompt);
    this.boot(prompt).catch((error: unknown) => this.failToStart(errorMessage(error)));
  }

  async reply(text: string): Promise<void> {
    if (this.closing) return;
    if (this.turnActive || this.threadId === undefined) {
      this.pendingReplies.push(text);
      return;
    }
    this.beginTurn(text);
    this.sendTurn(text);
  }

  async resolveApproval(requestId: string, decision: ApprovalDecision): Promise<void> {
    const rpcId = this.approvals.get(requestId);
    if (rpcId === undefined) return;
    this.approvals.delete(requestId);
    this.rpc.respond(rpcId, { decision: decision.decision === 'allow' ? 'accept' : 'decline' });
  }

  async interrupt(): Promise<void> {
    if (!this.turnActive) return;
    this.interruptRequested = true;
    this.pendingReplies.length = 0;
    this.cancelApprovals();
    await this.sendInterrupt();
  }

  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.cancelApprovals();
      this.rpc.close('the session was closed');
      this.child.stdin?.end();
      this.killGroup('SIGTERM');
      const force = setTimeout(() => this.killGroup('SIGKILL'), CLOSE_GRACE_MS);
      void this.exited.finally(() => clearTimeout(force));
    }
    await this.exited;
  }

  private async boot(prompt: string | undefined): Promise<void> {
    await this.rpc.request('initialize', {
      clientInfo: { name: 'baton', title: 'Baton', version: '0.1.0' },
      capabilities: { experimentalApi: false, requestAttestation: false },
    });
    this.rpc.notify('initialized');
    const settings = this.threadSettings();
    const resumeId = this.options.resumeId;
    const response = resumeId === undefined ? await this.rpc.request('thread/start', settings) : await this.rpc.request('thread/resume', { ...settings, threadId: resumeId });
    this.threadId = ThreadResponse.parse(response).thread.id;
    this.emit({ type: 'agent.identified', agentSessionId: this.threadId });
    if (prompt !== undefined) {
      this.sendTurn(prompt);
      return;
    }
    // Resumed after the last turn had finished: say so in a turn of our own and wait for a reply.
    this.emit({ type: 'turn.started' });
    this.emit({ type: 'message.added', role: 'assistant', text: 'Resumed the conversation; waiting for your reply.' });
    this.emit({ type: 'turn.completed', outcome: 'success' });
    this.startNextReply();
  }

  /** Approvals go to Baton; the sandbox keeps writes inside the worktree (not even /tmp). */
  private threadSettings(): Record<string, unknown> {
    const bypass = this.options.permissionMode === 'bypassPermissions';
    return {
      cwd: this.options.cwd,
      ...(this.options.model === undefined ? {} : { model: this.options.model }),
      approvalPolicy: bypass ? 'never' : 'on-request',
      sandbox: bypass ? 'danger-full-access' : 'workspace-write',
      config: { sandbox_workspace_write: { network_access: false, exclude_slash_tmp: true, exclude_tmpdir_env_var: true } },
    };
  }

  private beginTurn(prompt: string): void {
    this.turnActive = true;
    this.interruptRequested = false;
    this.turnId = undefined;
    this.save({ turnOpen: true });
    this.emit({ type: 'turn.started', prompt });
  }

  private sendTurn(prompt: string): void {
    const params = { threadId: this.threadId, input: [{ type: 'text', text: prompt, text_elements: [] }] };
    this.rpc.request('turn/start', params).then(
      (response) => {
        this.turnId ??= TurnResponse.parse(response).turn.id;
        if (this.interruptRequested) void this.sendInterrupt();
      },
      (error: unknown) => {
        if (!this.turnActive || this.closing) return;
        this.completeTurn({ type: 'turn.completed', outcome: 'error', error: `codex refused the turn: ${errorMessage(error)}` });
      },
    );
  }

  private async sendInterrupt(): Promise<void> {
    if (this.threadId === undefined || this.turnId === undefined) return;
    try {
      await this.rpc.request('turn/interrupt', { threadId: this.threadId, turnId: this.turnId });
    } catch (error) {
      log.warn('turn/interrupt failed', { error: errorMessage(error) });
    }
  }

  private onNotification(method: string, params: unknown): void {
    if (!(method in Notifications)) return;
    const schema = Notifications[method as keyof typeof Notifications];
    const parsed = schema.safeParse(params);
    if (!parsed.success) {
      this.emit({ type: 'error.raised', message: `codex sent a malformed ${method} notification`, fatal: false, detail: JSON.stringify(params).slice(0, 500) });
      return;
    }
    const data = parsed.data;
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
        const result = method === 'item/started' ? this.normalizer.itemStarted(item) : this.normalizer.itemCompleted(item);
        if (typeof result === 'string') this.emit({ type: 'error.raised', message: `codex sent a malformed item: ${result}`, fatal: false, detail: JSON.stringify(item).slice(0, 500) });
        else result.forEach(this.emit);
        return;
      }
      case 'thread/tokenUsage/updated': {
        const { event, total } = usageDelta(this.saved.usage, Notifications[method].parse(params).tokenUsage.total);
        this.save({ usage: total });
        if (event !== undefined) this.emit(event);
        return;
      }
      case 'error': {
        const { error, willRetry } = Notifications.error.parse(params);
        this.emit({ type: 'error.raised', message: `${describeError(error)}${willRetry ? ' (codex will retry)' : ''}`, fatal: false });
        return;
      }
      default:
        return;
    }
  }

  private onTurn(method: 'turn/started' | 'turn/completed', params: { turn: { id: string; status: string; error?: Parameters<typeof describeError>[0] | null | undefined } }): void {
    if (method === 'turn/started') {
      this.turnId = params.turn.id;
      return;
    }
    const { turn } = params;
    if (turn.status === 'completed') this.completeTurn({ type: 'turn.completed', outcome: 'success' });
    else if (turn.status === 'interrupted' || this.interruptRequested) this.completeTurn({ type: 'turn.completed', outcome: 'interrupted' });
    else this.completeTurn({ type: 'turn.completed', outcome: 'error', error: turn.error ? describeError(turn.error) : `the turn ended as ${turn.status}` });
  }

  private completeTurn(outcome: Extract<AgentEvent, { type: 'turn.completed' }>): void {
    if (!this.turnActive) return;
    this.normalizer.closeOpenTools('the turn ended before the tool finished').forEach(this.emit);
    this.turnActive = false;
    this.interruptRequested = false;
    this.turnId = undefined;
    this.save({ turnOpen: false });
    this.emit(outcome);
    this.startNextReply();
  }

  private startNextReply(): void {
    const next = this.pendingReplies.shift();
    if (next === undefined || this.closing) return;
    this.beginTurn(next);
    this.sendTurn(next);
  }

  private onRequest(id: string | number, method: string, params: unknown): void {
    if (method === 'item/commandExecution/requestApproval') {
      const parsed = CommandApprovalParams.safeParse(params);
      if (!parsed.success) return this.refuse(id, method, params);
      const { itemId, command, reason } = parsed.data;
      this.requestApproval(id, itemId, COMMAND_TOOL, unwrapShell(command ?? ''), reason ?? undefined);
      return;
    }
    if (method === 'item/fileChange/requestApproval') {
      const parsed = FileChangeApprovalParams.safeParse(params);
      if (!parsed.success) return this.refuse(id, method, params);
      const { itemId, reason, grantRoot } = parsed.data;
      const files = this.normalizer.filesOf(itemId)?.join(', ') ?? '';
      const why = reason ?? (grantRoot ? `write access to ${grantRoot}` : undefined);
      this.requestApproval(id, itemId, PATCH_TOOL, files, why ?? undefined);
      return;
    }
    this.rpc.respondError(id, -32601, `Baton does not handle ${method}`);
  }

  private requestApproval(rpcId: string | number, itemId: string, tool: string, input: string, reason: string | undefined): void {
    const requestId = this.approvals.has(itemId) ? `${itemId}-${String(rpcId)}` : itemId;
    this.approvals.set(requestId, rpcId);
    this.emit({ type: 'approval.requested', requestId, tool, input, ...(reason === undefined ? {} : { reason }) });
  }

  private refuse(id: string | number, method: string, params: unknown): void {
    this.emit({ type: 'error.raised', message: `codex sent a malformed ${method} request`, fatal: false, detail: JSON.stringify(params).slice(0, 500) });
    this.rpc.respondError(id, -32602, 'invalid params');
  }

  private cancelApprovals(): void {
    const decision: ApprovalDecisionWire = 'cancel';
    for (const rpcId of this.approvals.values()) this.rpc.respond(rpcId, { decision });
    this.approvals.clear();
  }

  private failToStart(message: string): void {
    if (this.closing) return;
    this.emit({ type: 'error.raised', message: `codex could not start the conversation: ${message}`, fatal: true, detail: this.stderrTail.trim().slice(-2_000) || undefined });
    if (this.turnActive) this.completeTurn({ type: 'turn.completed', outcome: 'error', error: message });
    void this.close();
  }

  /** The process is gone: a close we asked for, or a crash. */
  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    this.rpc.close('codex exited');
    if (this.closing) {
      this.resolveExited({});
      return;
    }
    const error = signal !== null ? `codex was killed by ${signal}` : `codex exited with code ${code ?? '?'}`;
    this.approvals.clear();
    if (this.turnActive) {
      this.normalizer.closeOpenTools(error).forEach(this.emit);
      this.turnActive = false;
      this.emit({ type: 'turn.completed', outcome: 'error', error });
    }
    const stderr = this.stderrTail.trim();
    this.emit({ type: 'error.raised', message: error, fatal: true, ...(stderr === '' ? {} : { detail: stderr.slice(-2_000) }) });
    this.resolveExited({ error });
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  private loadState(): SavedState {
    const fresh: SavedState = { turnOpen: false, usage: { input: 0, cached: 0, output: 0 } };
    if (!existsSync(this.stateFile)) return fresh;
    try {
      return { ...fresh, ...(JSON.parse(readFileSync(this.stateFile, 'utf8')) as Partial<SavedState>) };
    } catch (error) {
      log.warn('unreadable codex state; starting afresh', { file: this.stateFile, error: errorMessage(error) });
      return fresh;
    }
  }

  private save(change: Partial<SavedState>): void {
    this.saved = { ...this.saved, ...change };
    writeFileSync(this.stateFile, JSON.stringify(this.saved));
  }
}

function describeError(error: { message: string; codexErrorInfo?: unknown; additionalDetails?: string | null | undefined }): string {
  const info = typeof error.codexErrorInfo === 'string' ? error.codexErrorInfo : error.codexErrorInfo ? JSON.stringify(error.codexErrorInfo) : undefined;
  const details = error.additionalDetails ? ` ${error.additionalDetails}` : '';
  return `${error.message}${details}${info === undefined ? '' : ` [${info}]`}`;
}
