/**
 * Codex's own rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as normalized
 * events: `session_meta` names the thread and its folder; `response_item` lines carry messages,
 * reasoning summaries, function and custom tool calls and their outputs. Developer messages and
 * the context Codex injects as user messages are not the user's words and are skipped, as are
 * `event_msg`, `turn_context` and any line type added later (counted).
 */
import type { EventBody } from '../../events/index.js';
import { list, obj, str, type ParsedLine, type ParseState } from './types.js';

export function parseCodexLine(line: Record<string, unknown>, state: ParseState): ParsedLine {
  const type = str(line.type) ?? 'untyped';
  const ts = str(line.timestamp) ?? new Date(0).toISOString();
  const payload = obj(line.payload) ?? {};
  if (type === 'session_meta') {
    return {
      events: [],
      facts: {
        ...(str(payload.id) === undefined ? {} : { nativeId: str(payload.id) }),
        ...(str(payload.cwd) === undefined ? {} : { cwd: str(payload.cwd) }),
      },
      skipped: type,
    };
  }
  if (type !== 'response_item') return { events: [], skipped: type };
  const bodies = item(payload, state);
  return {
    events: bodies.map((body) => ({ ts, body })),
    ...(bodies.length === 0 ? { skipped: `response_item/${str(payload.type) ?? 'untyped'}` } : {}),
  };
}

function item(p: Record<string, unknown>, state: ParseState): EventBody[] {
  switch (p.type) {
    case 'message': {
      const role = str(p.role);
      if (role !== 'user' && role !== 'assistant') return [];
      const text = list(p.content)
        .map((c) => str(obj(c)?.text) ?? '')
        .join('\n')
        .trim();
      if (text === '' || (role === 'user' && text.startsWith('<'))) return [];
      return [{ type: 'message.added', role, text }];
    }
    case 'reasoning': {
      const text = list(p.summary)
        .map((s) => str(obj(s)?.text) ?? '')
        .join('\n')
        .trim();
      return text === '' ? [] : [{ type: 'thinking.added', text }];
    }
    case 'function_call':
    case 'custom_tool_call': {
      const toolId = str(p.call_id) ?? 'tool';
      const tool = str(p.name) ?? 'tool';
      state.tools.set(toolId, tool);
      const input = str(p.arguments) ?? str(p.input) ?? '';
      const files = tool === 'apply_patch' ? patchedFiles(input) : [];
      return [{ type: 'tool.started', toolId, tool, input, ...(files.length === 0 ? {} : { files }) }];
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const toolId = str(p.call_id) ?? 'tool';
      const raw = str(p.output) ?? JSON.stringify(p.output ?? '');
      const exit = /(?:Process exited with code|Exit code:)\s*(\d+)/.exec(raw);
      const exitCode = exit === null ? undefined : Number(exit[1]);
      const output = raw.includes('\nOutput:\n')
        ? raw.slice(raw.indexOf('\nOutput:\n') + '\nOutput:\n'.length)
        : raw;
      return [
        {
          type: 'tool.finished',
          toolId,
          tool: state.tools.get(toolId) ?? 'tool',
          ok: exitCode === undefined || exitCode === 0,
          output,
          ...(exitCode === undefined ? {} : { exitCode }),
        },
      ];
    }
    default:
      return [];
  }
}

function patchedFiles(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
}
