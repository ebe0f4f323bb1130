/**
 * Codex's approval requests: the app-server asks before a command or a patch, as a JSON-RPC
 * request that stays unanswered until the user decides.
 */
import { errorMessage } from '../../shared/errors.js';
import { blockedEvent, blockedMessage, gateReason, judge } from '../gate.js';
import type { AgentEvent, ApprovalDecision, GateCall, ToolGate, ToolKind } from '../types.js';
import { unwrapShell } from './normalize.js';
import { CommandApprovalParams, FileChangeApprovalParams, type ApprovalDecisionWire } from './protocol.js';
import type { RpcConnection } from './rpc.js';
import { COMMAND_TOOL, ITEM_KINDS, PATCH_TOOL } from './tools.js';

/** Where a pending approval came from: the server's JSON-RPC id, and the turn that asked. */
interface Pending {
  rpcId: string | number;
  threadId: string;
  turnId: string;
  input: string;
}

export class CodexApprovals {
  /** Pending approvals by our request id. */
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly rpc: () => RpcConnection,
    private readonly emit: (event: AgentEvent) => void,
    /** The files of a patch item, known from when it started. */
    private readonly filesOf: (itemId: string) => string[] | undefined,
    private readonly gate: ToolGate | undefined,
    /** The session is in bypass mode: what the gate allows runs unasked. */
    private readonly bypass: boolean,
  ) {}

  /** A request from the server; false when it is not an approval. */
  request(id: string | number, method: string, params: unknown): boolean {
    if (method === 'item/commandExecution/requestApproval') {
      const parsed = CommandApprovalParams.safeParse(params);
      if (!parsed.success) return this.refuse(id, method, params);
      const { threadId, turnId, itemId, command, reason } = parsed.data;
      const input = unwrapShell(command ?? '');
      const call: GateCall = { tool: COMMAND_TOOL, kind: ITEM_KINDS.commandExecution, command: input };
      this.gated({ rpcId: id, threadId, turnId, input }, itemId, call, reason ?? undefined);
      return true;
    }
    if (method === 'item/fileChange/requestApproval') {
      const parsed = FileChangeApprovalParams.safeParse(params);
      if (!parsed.success) return this.refuse(id, method, params);
      const { threadId, turnId, itemId, reason, grantRoot } = parsed.data;
      const paths = this.filesOf(itemId) ?? [];
      const why = reason ?? (grantRoot ? `write access to ${grantRoot}` : undefined);
      const call: GateCall = {
        tool: PATCH_TOOL,
        kind: ITEM_KINDS.fileChange,
        paths: grantRoot ? [...paths, grantRoot] : paths,
      };
      this.gated({ rpcId: id, threadId, turnId, input: paths.join(', ') }, itemId, call, why ?? undefined);
      return true;
    }
    return false;
  }

  async resolve(requestId: string, decision: ApprovalDecision): Promise<void> {
    const pending = this.pending.get(requestId);
    if (pending === undefined) return;
    this.pending.delete(requestId);
    // A decline carries no words on the wire: the reason goes into the turn first, so the
    // model reads it beside the refusal in its next request.
    if (decision.decision === 'deny' && decision.reason !== undefined && decision.reason !== '')
      await this.steer(pending, decision.reason);
    this.rpc().respond(pending.rpcId, { decision: decision.decision === 'allow' ? 'accept' : 'decline' });
  }

  private async steer(
    { threadId, turnId, input }: Pending,
    reason: string,
    who = 'The user declined',
  ): Promise<void> {
    const text = `<approval_denied>${who} \`${input}\`: ${reason}</approval_denied>`;
    try {
      await this.rpc().request('turn/steer', {
        threadId,
        expectedTurnId: turnId,
        input: [{ type: 'text', text, text_elements: [] }],
      });
    } catch (error) {
      this.emit({
        type: 'error.raised',
        message: 'codex did not take the reason for a denial',
        fatal: false,
        detail: errorMessage(error),
      });
    }
  }

  /** Cancels every pending approval; after the process is gone the answers go nowhere. */
  cancelAll(): void {
    const decision: ApprovalDecisionWire = 'cancel';
    for (const { rpcId } of this.pending.values()) this.rpc().respond(rpcId, { decision });
    this.pending.clear();
  }

  /**
   * The gate first (src/policy): a blocked call is declined with the reason, a call it asks about
   * goes to the user in every mode, and in bypass mode — where Codex asks Baton about every
   * command only so that the gate sees it — a call it allows runs without asking anyone.
   */
  private gated(pending: Pending, itemId: string, call: GateCall, reason: string | undefined): void {
    const verdict = judge(this.gate, call);
    if (verdict.action === 'block') {
      this.emit(blockedEvent(call, pending.input, verdict));
      void this.steer(pending, blockedMessage(verdict), 'Baton blocked').finally(() =>
        this.rpc().respond(pending.rpcId, { decision: 'decline' }),
      );
      return;
    }
    if (verdict.action === 'allow' && this.bypass) {
      this.rpc().respond(pending.rpcId, { decision: 'accept' });
      return;
    }
    const gate = verdict.action === 'ask' ? verdict.rule : undefined;
    this.ask(pending, itemId, call.tool, call.kind, gate === undefined ? reason : gateReason(verdict), gate);
  }

  private ask(
    pending: Pending,
    itemId: string,
    tool: string,
    kind: ToolKind,
    reason: string | undefined,
    gate: string | undefined,
  ): void {
    const requestId = this.pending.has(itemId) ? `${itemId}-${String(pending.rpcId)}` : itemId;
    this.pending.set(requestId, pending);
    this.emit({
      type: 'approval.requested',
      requestId,
      tool,
      kind,
      input: pending.input,
      ...(reason === undefined ? {} : { reason }),
      ...(gate === undefined ? {} : { gate }),
    });
  }

  private refuse(id: string | number, method: string, params: unknown): true {
    this.emit({
      type: 'error.raised',
      message: `codex sent a malformed ${method} request`,
      fatal: false,
      detail: JSON.stringify(params).slice(0, 500),
    });
    this.rpc().respondError(id, -32602, 'invalid params');
    return true;
  }
}
