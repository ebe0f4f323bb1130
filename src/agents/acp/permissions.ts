/**
 * ACP's `session/request_permission`: the agent holds a tool call until the client picks one of
 * the options it offers (allow once / always, reject once / always). Baton answers through its
 * gate first, in every permission mode; then, as the mode says, at once or by asking the user
 * (`approval.requested`), and waits as long as the user takes. The agent stays in its own
 * asking mode whatever Baton's mode is, so that every call it would run reaches the gate.
 */
import { blockedEvent, gateReason, judge } from '../gate.js';
import type { AgentEvent, ApprovalDecision, GateCall, PermissionMode, ToolGate } from '../types.js';
import { batonKind, commandOf, filesOf, inputOf, toolName, writesOf, type AcpToolCall } from './normalize.js';
import type { ToolKind } from '../types.js';

export interface PermissionOption {
  optionId: string;
  kind: string;
  name?: string | undefined;
}

export interface PermissionRequest {
  toolCall: AcpToolCall;
  options: readonly PermissionOption[];
}

export type PermissionOutcome = {
  outcome: { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string };
};

const CANCELLED: PermissionOutcome = { outcome: { outcome: 'cancelled' } };

interface Waiter {
  options: readonly PermissionOption[];
  settle: (outcome: PermissionOutcome) => void;
}

export class AcpPermissions {
  private readonly waiting = new Map<string, Waiter>();
  private counter = 0;

  constructor(
    private readonly emit: (event: AgentEvent) => void,
    private readonly gate: ToolGate | undefined,
    private readonly mode: PermissionMode,
    private readonly cwd: string,
  ) {}

  get pending(): number {
    return this.waiting.size;
  }

  /** Answers one request: at once when the gate or the mode decides, else when the user does. */
  ask(request: PermissionRequest): Promise<PermissionOutcome> {
    const call = request.toolCall;
    const gateCall = judgedCall(call, this.cwd);
    const input = inputOf(call, this.cwd);
    const verdict = judge(this.gate, gateCall);
    if (verdict.action === 'block') {
      // ACP's answer carries no words: the agent reads a plain rejection, the user the rule.
      this.emit(blockedEvent(gateCall, input, verdict));
      return Promise.resolve(choose(request.options, 'deny'));
    }
    if (verdict.action === 'allow' && this.modeAllows(gateCall.kind))
      return Promise.resolve(choose(request.options, 'allow'));
    const requestId = this.waiting.has(call.toolCallId)
      ? `${call.toolCallId}-${++this.counter}`
      : call.toolCallId;
    return new Promise((settle) => {
      this.waiting.set(requestId, { options: request.options, settle });
      this.emit({
        type: 'approval.requested',
        requestId,
        tool: gateCall.tool,
        kind: gateCall.kind,
        input,
        ...(verdict.action === 'ask'
          ? { reason: gateReason(verdict), ...(verdict.rule === undefined ? {} : { gate: verdict.rule }) }
          : call.title === undefined || call.title === null
            ? {}
            : { reason: call.title }),
      });
    });
  }

  resolve(requestId: string, decision: ApprovalDecision): void {
    const waiter = this.waiting.get(requestId);
    if (waiter === undefined) return;
    this.waiting.delete(requestId);
    waiter.settle(choose(waiter.options, decision.decision));
  }

  /** Every pending request is cancelled: the turn was interrupted, or the agent is going. */
  cancelAll(): void {
    const waiters = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiters) waiter.settle(CANCELLED);
  }

  /** What Baton's permission mode lets through unasked once the gate allowed it (decision 241). */
  private modeAllows(kind: string): boolean {
    if (this.mode === 'bypassPermissions') return true;
    if (this.mode === 'acceptEdits') return kind === 'edit' || kind === 'read';
    return kind === 'read';
  }
}

/**
 * The call as the gate and the permission mode judge it: by what it carries, not by the kind the
 * agent labels it with (decision 282). ACP's `kind` is the agent's word; a request labelled `read`
 * that carries a command line is judged as running that command (so it is never let through as a
 * read, and the gate reads the command), one that carries a diff as an edit of its files.
 */
export function judgedCall(call: AcpToolCall, cwd: string): GateCall {
  const command = commandOf(call);
  const labelled = batonKind(call.kind);
  const writes = (call.content ?? []).some((c) => c.type === 'diff') || writesOf(call);
  const kind: ToolKind = command !== undefined ? 'run' : writes && labelled !== 'run' ? 'edit' : labelled;
  // The tool allow rules match: the kind's own ACP name when the label understated it.
  const tool = kind === labelled ? toolName(call) : kind === 'run' ? 'execute' : 'edit';
  return { tool, kind, command, paths: filesOf(call, cwd) };
}

/**
 * The option for a decision: always a one-time one, so each call is judged on its own (an
 * "always" would let the agent run later calls Baton never sees); the "always" option only when
 * the agent offers no one-time one. An agent offering neither is answered `cancelled`.
 */
export function choose(options: readonly PermissionOption[], decision: 'allow' | 'deny'): PermissionOutcome {
  const prefix = decision === 'allow' ? 'allow' : 'reject';
  const option =
    options.find((o) => o.kind === `${prefix}_once`) ?? options.find((o) => o.kind === `${prefix}_always`);
  return option === undefined ? CANCELLED : { outcome: { outcome: 'selected', optionId: option.optionId } };
}
