/** Claude Agent SDK messages → normalized events. Pure apart from remembering open tool calls. */
import type {
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKRateLimitInfo,
  SDKResultMessage,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
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

/** Claude's subscription windows, named as Codex's are (by their length). */
const WINDOWS: Record<string, { name: string; minutes?: number }> = {
  five_hour: { name: '5h', minutes: 300 },
  seven_day: { name: '7d', minutes: 10_080 },
  seven_day_opus: { name: '7d-opus', minutes: 10_080 },
  seven_day_sonnet: { name: '7d-sonnet', minutes: 10_080 },
  seven_day_overage_included: { name: '7d-overage-included', minutes: 10_080 },
  overage: { name: 'overage' },
};

interface WindowUsage {
  utilization?: number | undefined;
  resetsAt?: number | undefined;
}

/**
 * A `rate_limit_event` (claude.ai accounts only: the CLI reads the API's
 * `anthropic-ratelimit-unified-*` headers) → `limits.reported`. Utilization is a fraction (above
 * 1 past a cap); resets are seconds since the epoch. The CLI also sends every window it read
 * (`unifiedWindows`, not in the SDK's types); without them the one window the event is about
 * counts, when it says how much is used.
 */
export function limitsEvent(
  info: SDKRateLimitInfo,
): Extract<AgentEvent, { type: 'limits.reported' }> | undefined {
  const all = (info as { unifiedWindows?: Record<string, WindowUsage | undefined> }).unifiedWindows;
  const reported: [string, WindowUsage | undefined][] =
    all === undefined ? [[info.rateLimitType ?? '', info]] : Object.entries(all);
  const windows = reported.flatMap(([type, usage]) => {
    const known = WINDOWS[type];
    const utilization = usage?.utilization;
    if (known === undefined || typeof utilization !== 'number' || !Number.isFinite(utilization)) return [];
    const resetsAt = usage?.resetsAt;
    return [
      {
        name: known.name,
        usedPercent: Math.max(0, Math.round(utilization * 10_000) / 100),
        ...(known.minutes === undefined ? {} : { windowMinutes: known.minutes }),
        ...(typeof resetsAt === 'number' && Number.isFinite(resetsAt)
          ? { resetsAt: new Date(resetsAt * 1000).toISOString() }
          : {}),
      },
    ];
  });
  return windows.length === 0 ? undefined : { type: 'limits.reported', windows };
}

/**
 * The turn's outcome. A result can say `success` and still be an error (`is_error`), e.g. when
 * the API failed and the CLI wrote a synthetic reply, so the flag decides, not the subtype.
 */
export function turnOutcome(
  result: SDKResultMessage,
  interruptRequested: boolean,
): Extract<AgentEvent, { type: 'turn.completed' }> {
  if (interruptRequested) return { type: 'turn.completed', outcome: 'interrupted' };
  if (result.subtype === 'success' && !result.is_error) return { type: 'turn.completed', outcome: 'success' };
  return { type: 'turn.completed', outcome: 'error', error: resultError(result) };
}

/**
 * The usage limit that ended a failed turn (decision 262): a `rate_limit_event` that said
 * `rejected` during the turn, or the API's 429 on the result. Its window and reset come from the
 * rejection; a 429 alone says neither.
 */
export function limitOf(
  result: SDKResultMessage,
  rejected: SDKRateLimitInfo | undefined,
): { window?: string; resetsAt?: string } | undefined {
  const status = 'api_error_status' in result ? result.api_error_status : undefined;
  if (rejected === undefined && status !== 429) return undefined;
  const window = rejected?.rateLimitType === undefined ? undefined : WINDOWS[rejected.rateLimitType]?.name;
  const resetsAt = rejected?.resetsAt;
  return {
    ...(window === undefined ? {} : { window }),
    ...(typeof resetsAt === 'number' && Number.isFinite(resetsAt)
      ? { resetsAt: new Date(resetsAt * 1000).toISOString() }
      : {}),
  };
}

function resultError(result: SDKResultMessage): string {
  const status =
    'api_error_status' in result && typeof result.api_error_status === 'number'
      ? `API error ${result.api_error_status}: `
      : '';
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
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
