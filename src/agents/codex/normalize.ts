/** Codex app-server items and usage → normalized events. */
import { isAbsolute, relative, resolve } from 'node:path';
import type { AgentEvent } from '../types.js';
import { ThreadItem, type RateLimitWindow, type TokenUsageBreakdown } from './protocol.js';
import { COMMAND_TOOL, ITEM_KINDS, PATCH_TOOL, WEB_SEARCH_TOOL } from './tools.js';
import { clipOutput } from '../output.js';

export interface UsageTotal {
  input: number;
  cached: number;
  output: number;
}

export class CodexNormalizer {
  /** Files of each patch, by item id, from when it started (approvals refer to them). */
  private readonly patchFiles = new Map<string, string[]>();
  private readonly openTools = new Map<string, string>();

  constructor(private readonly cwd: string) {}

  filesOf(itemId: string): string[] | undefined {
    return this.patchFiles.get(itemId);
  }

  /** Returns the events, or an error message when the item did not match the protocol. */
  itemStarted(raw: unknown): AgentEvent[] | string {
    const parsed = ThreadItem.safeParse(raw);
    if (!parsed.success)
      return knownType(raw) ? `unexpected item shape: ${parsed.error.issues[0]?.message ?? ''}` : [];
    const item = parsed.data;
    switch (item.type) {
      case 'commandExecution':
        this.openTools.set(item.id, COMMAND_TOOL);
        return [
          {
            type: 'tool.started',
            toolId: item.id,
            tool: COMMAND_TOOL,
            kind: ITEM_KINDS.commandExecution,
            input: unwrapShell(item.command),
          },
        ];
      case 'fileChange': {
        const files = item.changes.map((c) => relativeToCwd(c.path, this.cwd));
        this.patchFiles.set(item.id, files);
        this.openTools.set(item.id, PATCH_TOOL);
        return [
          {
            type: 'tool.started',
            toolId: item.id,
            tool: PATCH_TOOL,
            kind: ITEM_KINDS.fileChange,
            input: files.join(', '),
            files,
          },
        ];
      }
      case 'mcpToolCall': {
        const tool = `${item.server}.${item.tool}`;
        this.openTools.set(item.id, tool);
        return [{ type: 'tool.started', toolId: item.id, tool, kind: ITEM_KINDS.mcpToolCall, input: '' }];
      }
      case 'webSearch':
        this.openTools.set(item.id, WEB_SEARCH_TOOL);
        return [
          {
            type: 'tool.started',
            toolId: item.id,
            tool: WEB_SEARCH_TOOL,
            kind: ITEM_KINDS.webSearch,
            input: item.query,
          },
        ];
      case 'agentMessage':
      case 'reasoning':
        return [];
    }
  }

  itemCompleted(raw: unknown): AgentEvent[] | string {
    const parsed = ThreadItem.safeParse(raw);
    if (!parsed.success)
      return knownType(raw) ? `unexpected item shape: ${parsed.error.issues[0]?.message ?? ''}` : [];
    const item = parsed.data;
    switch (item.type) {
      case 'agentMessage':
        return item.text.trim() === '' ? [] : [{ type: 'message.added', role: 'assistant', text: item.text }];
      case 'reasoning': {
        const text = [...item.summary, ...item.content].join('\n').trim();
        return text === '' ? [] : [{ type: 'thinking.added', text }];
      }
      case 'commandExecution': {
        this.openTools.delete(item.id);
        const output = clipOutput(
          item.status === 'declined' ? 'declined by the user' : (item.aggregatedOutput ?? ''),
        );
        const exitCode = item.exitCode ?? undefined;
        return [
          {
            type: 'tool.finished',
            toolId: item.id,
            tool: COMMAND_TOOL,
            ok: item.status === 'completed' && (exitCode === undefined || exitCode === 0),
            ...(output === '' ? {} : { output }),
            ...(exitCode === undefined ? {} : { exitCode }),
          },
        ];
      }
      case 'fileChange': {
        this.openTools.delete(item.id);
        const files = item.changes.map((c) => relativeToCwd(c.path, this.cwd));
        const ok = item.status === 'completed';
        return [
          {
            type: 'tool.finished',
            toolId: item.id,
            tool: PATCH_TOOL,
            ok,
            ...(ok
              ? { files }
              : { output: item.status === 'declined' ? 'declined by the user' : 'the patch failed' }),
          },
        ];
      }
      case 'mcpToolCall': {
        const tool = this.openTools.get(item.id) ?? `${item.server}.${item.tool}`;
        this.openTools.delete(item.id);
        return [{ type: 'tool.finished', toolId: item.id, tool, ok: item.status === 'completed' }];
      }
      case 'webSearch':
        this.openTools.delete(item.id);
        return [{ type: 'tool.finished', toolId: item.id, tool: WEB_SEARCH_TOOL, ok: true }];
    }
  }

  /** Tool items a turn left open (interrupt, crash) are closed as failed. */
  closeOpenTools(why: string): AgentEvent[] {
    const events: AgentEvent[] = [...this.openTools].map(([toolId, tool]) => ({
      type: 'tool.finished' as const,
      toolId,
      tool,
      ok: false,
      output: why,
    }));
    this.openTools.clear();
    return events;
  }
}

/**
 * Codex reports usage as thread totals; Baton records deltas. Input excludes cached input, which
 * is reported on its own (as for Claude).
 */
export function usageDelta(
  previous: UsageTotal,
  total: TokenUsageBreakdown,
  model?: string,
): { event: Extract<AgentEvent, { type: 'usage.reported' }> | undefined; total: UsageTotal } {
  const now: UsageTotal = {
    input: total.inputTokens,
    cached: total.cachedInputTokens,
    output: total.outputTokens,
  };
  const base =
    now.input < previous.input || now.output < previous.output
      ? { input: 0, cached: 0, output: 0 }
      : previous;
  const cached = Math.max(0, now.cached - base.cached);
  const input = Math.max(0, now.input - base.input - cached);
  const output = now.output - base.output;
  if (input === 0 && output === 0 && cached === 0) return { event: undefined, total: now };
  return {
    event: {
      type: 'usage.reported',
      inputTokens: input,
      outputTokens: output,
      ...(cached === 0 ? {} : { cacheReadTokens: cached }),
      ...(model === undefined ? {} : { model }),
    },
    total: now,
  };
}

/**
 * The account's rolling windows (`account/rateLimits/updated`): primary is the 5-hour one and
 * secondary the weekly one today, but the names come from the lengths codex gives. A sparse
 * update without either window says nothing new.
 */
export function limitsEvent(limits: {
  primary?: RateLimitWindow | null | undefined;
  secondary?: RateLimitWindow | null | undefined;
}): AgentEvent | undefined {
  const windows = [limits.primary, limits.secondary].flatMap((window, index) => {
    if (window === null || window === undefined) return [];
    const minutes = window.windowDurationMins ?? undefined;
    return [
      {
        name: minutes === undefined ? (index === 0 ? 'primary' : 'secondary') : windowName(minutes),
        usedPercent: Math.max(0, window.usedPercent),
        ...(minutes === undefined || minutes <= 0 ? {} : { windowMinutes: Math.round(minutes) }),
        ...(window.resetsAt === null || window.resetsAt === undefined
          ? {}
          : { resetsAt: new Date(window.resetsAt * 1000).toISOString() }),
      },
    ];
  });
  return windows.length === 0 ? undefined : { type: 'limits.reported', windows };
}

/**
 * The usage limit that ended a failed turn (decision 262): codex's `usageLimitExceeded` error
 * info. Which window ran out and when it resets come from the account's last reported windows:
 * the fullest one.
 */
export function limitOf(
  error: { codexErrorInfo?: unknown } | null | undefined,
  windows: readonly { name: string; usedPercent: number; resetsAt?: string | undefined }[],
): { window?: string; resetsAt?: string } | undefined {
  const info = error?.codexErrorInfo;
  const code =
    typeof info === 'string'
      ? info
      : info !== null && typeof info === 'object'
        ? Object.keys(info)[0]
        : undefined;
  if (code !== 'usageLimitExceeded') return undefined;
  const fullest = [...windows].sort((a, b) => b.usedPercent - a.usedPercent)[0];
  if (fullest === undefined) return {};
  return { window: fullest.name, ...(fullest.resetsAt === undefined ? {} : { resetsAt: fullest.resetsAt }) };
}

/** 300 → `5h`, 10080 → `7d`, 45 → `45m`. */
export function windowName(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${Math.round(minutes)}m`;
}

/** A turn's or the server's error, with whatever detail codex gave. */
export function describeError(error: {
  message: string;
  codexErrorInfo?: unknown;
  additionalDetails?: string | null | undefined;
}): string {
  const info =
    typeof error.codexErrorInfo === 'string'
      ? error.codexErrorInfo
      : error.codexErrorInfo
        ? JSON.stringify(error.codexErrorInfo)
        : undefined;
  const details = error.additionalDetails ? ` ${error.additionalDetails}` : '';
  return `${error.message}${details}${info === undefined ? '' : ` [${info}]`}`;
}

/** `/bin/bash -lc 'cmd'` reads better as `cmd`. */
export function unwrapShell(command: string): string {
  const match = /^\S*\/(?:ba|z)?sh -lc '([\s\S]*)'$/.exec(command);
  return match?.[1] === undefined ? command : match[1].replace(/'\\''/g, "'");
}

function relativeToCwd(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const rel = relative(cwd, absolute);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? absolute : rel;
}

function knownType(raw: unknown): boolean {
  const type = (raw as { type?: unknown } | null)?.type;
  return typeof type === 'string' && ['agentMessage', 'reasoning', ...Object.keys(ITEM_KINDS)].includes(type);
}
