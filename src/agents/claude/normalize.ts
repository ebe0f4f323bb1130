/** Claude Agent SDK messages → normalized events. Pure apart from remembering open tool calls. */
import type { SDKAPIRetryMessage, SDKAssistantMessage, SDKResultMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { AgentEvent } from '../types.js';
import { describeToolInput, filesOfToolInput, toolKind } from './tools.js';
import { clipOutput } from '../output.js';


interface OpenTool {
  name: string;
  files: string[] | undefined;
}

export class ClaudeNormalizer {
  private readonly openTools = new Map<string, OpenTool>();

  constructor(private readonly cwd: string) {}

  /** The CLI sends one assistant message per content block. */
  assistant(message: SDKAssistantMessage): AgentEvent[] {
    const events: AgentEvent[] = [];
    const topLevel = message.parent_tool_use_id === null;
    for (const block of message.message.content) {
      if (block.type === 'text' && topLevel && block.text.trim() !== '') {
        events.push({ type: 'message.added', role: 'assistant', text: block.text });
      } else if (block.type === 'thinking' && topLevel && block.thinking.trim() !== '') {
        events.push({ type: 'thinking.added', text: block.thinking });
      } else if (block.type === 'tool_use') {
        const input = asRecord(block.input);
        const files = filesOfToolInput(block.name, input, this.cwd);
        this.openTools.set(block.id, { name: block.name, files });
        events.push({
          type: 'tool.started',
          toolId: block.id,
          tool: block.name,
          kind: toolKind(block.name),
          input: describeToolInput(block.name, input),
          ...(files === undefined ? {} : { files }),
        });
      }
    }
    return events;
  }

  /** User messages from the CLI carry tool results. */
  user(message: SDKUserMessage): AgentEvent[] {
    const content = message.message.content;
    if (typeof content === 'string') return [];
    const events: AgentEvent[] = [];
    for (const block of content) {
      if (block.type !== 'tool_result') continue;
      const open = this.openTools.get(block.tool_use_id);
      if (open === undefined) continue;
      this.openTools.delete(block.tool_use_id);
      const ok = block.is_error !== true;
      const output = clipOutput(resultText(block.content));
      const exitCode = ok ? undefined : exitCodeOf(output);
      events.push({
        type: 'tool.finished',
        toolId: block.tool_use_id,
        tool: open.name,
        ok,
        ...(output === '' ? {} : { output }),
        ...(exitCode === undefined ? {} : { exitCode }),
        ...(ok && open.files !== undefined ? { files: open.files } : {}),
      });
    }
    return events;
  }

  /** Tool calls left open when a turn ends (interrupt, crash) are closed as failed. */
  closeOpenTools(why: string): AgentEvent[] {
    const events: AgentEvent[] = [...this.openTools].map(([toolId, open]) => ({
      type: 'tool.finished' as const,
      toolId,
      tool: open.name,
      ok: false,
      output: why,
    }));
    this.openTools.clear();
    return events;
  }

  apiRetry(message: SDKAPIRetryMessage): AgentEvent {
    const status = message.error_status === null ? '' : ` ${message.error_status}`;
    return {
      type: 'error.raised',
      message: `Model API error${status} (${message.error}); retry ${message.attempt} of ${message.max_retries} in ${Math.round(message.retry_delay_ms)} ms`,
      fatal: false,
    };
  }
}

/**
 * The turn's outcome. A result can say `success` and still be an error (`is_error`), e.g. when
 * the API failed and the CLI wrote a synthetic reply, so the flag decides, not the subtype.
 */
export function turnOutcome(result: SDKResultMessage, interruptRequested: boolean): Extract<AgentEvent, { type: 'turn.completed' }> {
  if (interruptRequested) return { type: 'turn.completed', outcome: 'interrupted' };
  if (result.subtype === 'success' && !result.is_error) return { type: 'turn.completed', outcome: 'success' };
  return { type: 'turn.completed', outcome: 'error', error: resultError(result) };
}

function resultError(result: SDKResultMessage): string {
  const status = 'api_error_status' in result && typeof result.api_error_status === 'number' ? `API error ${result.api_error_status}: ` : '';
  if (result.subtype === 'success') return `${status}${result.result || 'the turn failed'}`;
  const detail = result.errors.length > 0 ? result.errors.join('; ') : result.subtype;
  const reason = result.terminal_reason === undefined ? '' : ` (${result.terminal_reason})`;
  return `${status}${detail}${reason}`;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      const text = (part as { text?: unknown } | null)?.text;
      return typeof text === 'string' ? text : '';
    })
    .join('\n');
}

function exitCodeOf(output: string): number | undefined {
  const match = /^Exit code (\d+)/m.exec(output);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
