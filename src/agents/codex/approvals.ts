/**
 * Codex's approval requests: the app-server asks before a command or a patch, as a JSON-RPC
 * request that stays unanswered until the user decides.
 */
import type { AgentEvent, ApprovalDecision, ToolKind } from '../types.js';
import { unwrapShell } from './normalize.js';
import { CommandApprovalParams, FileChangeApprovalParams, type ApprovalDecisionWire } from './protocol.js';
import type { RpcConnection } from './rpc.js';
import { COMMAND_TOOL, ITEM_KINDS, PATCH_TOOL } from './tools.js';

export class CodexApprovals {
  /** Pending approvals: our request id → the server's JSON-RPC id. */
  private readonly pending = new Map<string, string | number>();

  constructor(
    private readonly rpc: () => RpcConnection,
    private readonly emit: (event: AgentEvent) => void,
    /** The files of a patch item, known from when it started. */
    private readonly filesOf: (itemId: string) => string[] | undefined,
  ) {}

  /** A request from the server; false when it is not an approval. */
  request(id: string | number, method: string, params: unknown): boolean {
    if (method === 'item/commandExecution/requestApproval') {
      const parsed = CommandApprovalParams.safeParse(params);
      if (!parsed.success) return this.refuse(id, method, params);
      const { itemId, command, reason } = parsed.data;
      this.ask(id, itemId, COMMAND_TOOL, ITEM_KINDS.commandExecution, unwrapShell(command ?? ''), reason ?? undefined);
      return true;
    }
    if (method === 'item/fileChange/requestApproval') {
      const parsed = FileChangeApprovalParams.safeParse(params);
      if (!parsed.success) return this.refuse(id, method, params);
      const { itemId, reason, grantRoot } = parsed.data;
      const files = this.filesOf(itemId)?.join(', ') ?? '';
      const why = reason ?? (grantRoot ? `write access to ${grantRoot}` : undefined);
      this.ask(id, itemId, PATCH_TOOL, ITEM_KINDS.fileChange, files, why ?? undefined);
      return true;
    }
    return false;
  }

  resolve(requestId: string, decision: ApprovalDecision): void {
    const rpcId = this.pending.get(requestId);
    if (rpcId === undefined) return;
    this.pending.delete(requestId);
    this.rpc().respond(rpcId, { decision: decision.decision === 'allow' ? 'accept' : 'decline' });
  }

  /** Cancels every pending approval; after the process is gone the answers go nowhere. */
  cancelAll(): void {
    const decision: ApprovalDecisionWire = 'cancel';
    for (const rpcId of this.pending.values()) this.rpc().respond(rpcId, { decision });
    this.pending.clear();
  }

  private ask(rpcId: string | number, itemId: string, tool: string, kind: ToolKind, input: string, reason: string | undefined): void {
    const requestId = this.pending.has(itemId) ? `${itemId}-${String(rpcId)}` : itemId;
    this.pending.set(requestId, rpcId);
    this.emit({ type: 'approval.requested', requestId, tool, kind, input, ...(reason === undefined ? {} : { reason }) });
  }

  private refuse(id: string | number, method: string, params: unknown): true {
    this.emit({ type: 'error.raised', message: `codex sent a malformed ${method} request`, fatal: false, detail: JSON.stringify(params).slice(0, 500) });
    this.rpc().respondError(id, -32602, 'invalid params');
    return true;
  }
}
