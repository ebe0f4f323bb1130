/**
 * What Claude asks the user, through the SDK's `canUseTool`: tool calls held for approval, and
 * Claude's own question tool, answered by the next reply. Either waits as long as the user takes.
 */
import type {
  CanUseTool,
  HookCallback,
  HookJSONOutput,
  PermissionResult,
} from '@anthropic-ai/claude-agent-sdk';
import { blockedEvent, blockedMessage, gateReason, judge } from '../gate.js';
import type { AgentEvent, ApprovalDecision, ToolGate } from '../types.js';
import { describeToolInput, gateCall, toolKind } from './tools.js';

const QUESTION_TOOL = 'AskUserQuestion';
const INTERRUPTED: PermissionResult = {
  behavior: 'deny',
  message: 'The user interrupted the turn.',
  interrupt: true,
};

export class ClaudeApprovals {
  private readonly approvals = new Map<string, (answer: ApprovalDecision | undefined) => void>();
  private question: ((text: string | undefined) => void) | undefined;

  constructor(
    private readonly emit: (event: AgentEvent) => void,
    private readonly gate: ToolGate | undefined,
  ) {}

  resolve(requestId: string, decision: ApprovalDecision): void {
    const waiter = this.approvals.get(requestId);
    this.approvals.delete(requestId);
    waiter?.(decision);
  }

  /** Answers the pending question with a reply; false when no question is pending. */
  answer(text: string): boolean {
    const question = this.question;
    this.question = undefined;
    question?.(text);
    return question !== undefined;
  }

  /** Denies every pending call and drops the question (the turn is interrupted or the agent gone). */
  release(): void {
    const approvals = [...this.approvals.values()];
    this.approvals.clear();
    approvals.forEach((waiter) => waiter(undefined));
    const question = this.question;
    this.question = undefined;
    question?.(undefined);
  }

  readonly canUseTool: CanUseTool = async (toolName, input, context): Promise<PermissionResult> => {
    if (toolName === QUESTION_TOOL) return this.askUser(input, context.signal);
    const reason =
      context.title ??
      context.decisionReason ??
      (context.blockedPath === undefined ? undefined : `touches ${context.blockedPath}`);
    const decision = await this.hold(context.toolUseID, toolName, input, reason, undefined, context.signal);
    if (decision === undefined) return INTERRUPTED;
    if (decision.decision === 'allow') return { behavior: 'allow', updatedInput: input };
    const why = decision.reason === undefined || decision.reason === '' ? '' : ` Reason: ${decision.reason}`;
    return { behavior: 'deny', message: `The user denied this ${toolName} call.${why}` };
  };

  /**
   * The gate, before every tool call in every permission mode: a PreToolUse hook runs even under
   * bypassPermissions, where canUseTool is never called. A call the gate asks about is held here
   * until the user decides, and then allowed or denied outright, so it is not asked twice.
   */
  readonly preToolUse: HookCallback = async (hookInput, toolUseID, { signal }): Promise<HookJSONOutput> => {
    if (hookInput.hook_event_name !== 'PreToolUse') return {};
    const toolName = hookInput.tool_name;
    const input = (
      typeof hookInput.tool_input === 'object' && hookInput.tool_input !== null ? hookInput.tool_input : {}
    ) as Record<string, unknown>;
    const call = gateCall(toolName, input);
    const verdict = judge(this.gate, call);
    if (verdict.action === 'allow') return {};
    if (verdict.action === 'block') {
      this.emit(blockedEvent(call, describeToolInput(toolName, input), verdict));
      return preToolUse('deny', blockedMessage(verdict));
    }
    const decision = await this.hold(
      toolUseID ?? hookInput.tool_use_id,
      toolName,
      input,
      gateReason(verdict),
      verdict.rule,
      signal,
    );
    if (decision === undefined) return preToolUse('deny', 'The user interrupted the turn.');
    if (decision.decision === 'allow') return preToolUse('allow', 'The user approved it.');
    const why = decision.reason === undefined || decision.reason === '' ? '' : ` Reason: ${decision.reason}`;
    return preToolUse('deny', `The user denied this ${toolName} call.${why}`);
  };

  /** Asks the user about one call and waits for the answer; undefined when the turn was interrupted. */
  private async hold(
    requestId: string,
    toolName: string,
    input: Record<string, unknown>,
    reason: string | undefined,
    gate: string | undefined,
    signal: AbortSignal,
  ): Promise<ApprovalDecision | undefined> {
    const decision = await new Promise<ApprovalDecision | undefined>((resolve) => {
      this.approvals.set(requestId, resolve);
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
      this.emit({
        type: 'approval.requested',
        requestId,
        tool: toolName,
        kind: toolKind(toolName),
        input: describeToolInput(toolName, input),
        ...(reason === undefined ? {} : { reason }),
        ...(gate === undefined ? {} : { gate }),
      });
    });
    this.approvals.delete(requestId);
    return decision;
  }

  private async askUser(input: Record<string, unknown>, signal: AbortSignal): Promise<PermissionResult> {
    const questions = questionTexts(input);
    const answer = await new Promise<string | undefined>((resolve) => {
      this.question = resolve;
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
      this.emit({ type: 'question.asked', text: questions.join('\n') });
    });
    this.question = undefined;
    if (answer === undefined) return INTERRUPTED;
    const answers = Object.fromEntries(questions.map((q) => [q, answer]));
    return { behavior: 'allow', updatedInput: { ...input, answers } };
  }
}

function questionTexts(input: Record<string, unknown>): string[] {
  const questions = Array.isArray(input.questions) ? (input.questions as unknown[]) : [];
  const texts = questions.flatMap((q) => {
    const text = (q as { question?: unknown } | null)?.question;
    return typeof text === 'string' ? [text] : [];
  });
  return texts.length > 0 ? texts : ['Claude asked a question.'];
}

function preToolUse(permissionDecision: 'allow' | 'deny', permissionDecisionReason: string): HookJSONOutput {
  return {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason },
  };
}
