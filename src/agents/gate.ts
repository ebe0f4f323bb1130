/**
 * How every adapter applies the gate's verdict (src/policy): the words the agent is told when a
 * call is blocked, the event that records it, and the reason an approval carries.
 */
import type { AgentEvent, GateCall, GateVerdict, ToolGate } from './types.js';

/** The gate's verdict for a call; every call is allowed when the session has no gate (tests of adapters alone). */
export function judge(gate: ToolGate | undefined, call: GateCall): GateVerdict {
  return gate === undefined ? { action: 'allow' } : gate(call);
}

/** What the agent reads when its call is refused: the rule, why, and what to do instead. */
export function blockedMessage(verdict: GateVerdict): string {
  const instead = verdict.suggest === undefined ? '' : ` Instead: ${verdict.suggest}.`;
  return `Baton's safety gate blocked this call (rule ${verdict.rule ?? 'unknown'}): ${verdict.why ?? 'it is destructive'}.${instead} Do not try to get around this rule; ask the user if the action is really needed.`;
}

export function blockedEvent(call: GateCall, input: string, verdict: GateVerdict): AgentEvent {
  return {
    type: 'tool.blocked',
    tool: call.tool,
    kind: call.kind,
    input,
    rule: verdict.rule ?? 'unknown',
    why: verdict.why ?? '',
    ...(verdict.suggest === undefined ? {} : { suggest: verdict.suggest }),
  };
}

/** The reason an approval the gate asked for carries. */
export function gateReason(verdict: GateVerdict): string {
  return `Baton's gate (${verdict.rule ?? 'unknown'}): ${verdict.why ?? 'needs your approval'}`;
}

/** Judges a call the agent is about to make; a blocked one is recorded (`tool.blocked`) here. */
export function screen(
  gate: ToolGate | undefined,
  call: GateCall,
  input: string,
  emit: (event: AgentEvent) => void,
): GateVerdict {
  const verdict = judge(gate, call);
  if (verdict.action === 'block') emit(blockedEvent(call, input, verdict));
  return verdict;
}

/** The reason and gate rule an approval carries: the gate's when it asked, else the agent's own reason. */
export function approvalReason(
  verdict: GateVerdict,
  reason: string | undefined,
): { reason?: string; gate?: string } {
  if (verdict.action === 'ask')
    return { reason: gateReason(verdict), ...(verdict.rule === undefined ? {} : { gate: verdict.rule }) };
  return reason === undefined ? {} : { reason };
}
