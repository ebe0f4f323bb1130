/**
 * Claude Code's own transcript (`~/.claude/projects/<folder>/<session>.jsonl`) as normalized
 * events: `user` and `assistant` lines carry the conversation (text, thinking, tool_use,
 * tool_result blocks); every other line type (attachments, queue operations, costs, request
 * shapes, and types added later) is skipped and counted.
 */
import type { EventBody } from '../../events/index.js';
import { list, obj, str, type ParsedLine, type ParseState } from './types.js';

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

export function parseClaudeLine(line: Record<string, unknown>, state: ParseState): ParsedLine {
  const type = str(line.type) ?? 'untyped';
  const ts = str(line.timestamp) ?? new Date(0).toISOString();
  const facts = {
    ...(str(line.sessionId) === undefined ? {} : { nativeId: str(line.sessionId) }),
    ...(str(line.cwd) === undefined ? {} : { cwd: str(line.cwd) }),
  };
  if (type === 'summary' && str(line.summary) !== undefined)
    return { events: [], facts: { title: str(line.summary) }, skipped: 'summary' };
  if (type !== 'user' && type !== 'assistant') return { events: [], facts, skipped: type };
  if (line.isSidechain === true) return { events: [], facts, skipped: 'sidechain' };
  const message = obj(line.message);
  if (message === undefined) return { events: [], facts, skipped: `${type} without message` };
  const bodies: EventBody[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    if (!isSystemText(content)) bodies.push({ type: 'message.added', role: type, text: content });
  } else {
    for (const raw of list(content)) bodies.push(...block(type, obj(raw) ?? {}, state));
  }
  return {
    events: bodies.map((body) => ({ ts, body })),
    facts,
    ...(bodies.length === 0 ? { skipped: `${type} without content` } : {}),
  };
}

function block(role: 'user' | 'assistant', b: Record<string, unknown>, state: ParseState): EventBody[] {
  switch (b.type) {
    case 'text': {
      const text = str(b.text) ?? '';
      return text === '' || isSystemText(text) ? [] : [{ type: 'message.added', role, text }];
    }
    case 'thinking': {
      const text = str(b.thinking) ?? '';
      return text === '' ? [] : [{ type: 'thinking.added', text }];
    }
    case 'tool_use': {
      const toolId = str(b.id) ?? 'tool';
      const tool = str(b.name) ?? 'tool';
      state.tools.set(toolId, tool);
      const input = obj(b.input) ?? {};
      const path = str(input.file_path) ?? str(input.notebook_path);
      return [
        {
          type: 'tool.started',
          toolId,
          tool,
          input: JSON.stringify(input),
          ...(FILE_TOOLS.has(tool) && path !== undefined ? { files: [path] } : {}),
        },
      ];
    }
    case 'tool_result': {
      const toolId = str(b.tool_use_id) ?? 'tool';
      const output =
        typeof b.content === 'string'
          ? b.content
          : list(b.content)
              .map((c) => str(obj(c)?.text) ?? '')
              .join('\n');
      return [
        {
          type: 'tool.finished',
          toolId,
          tool: state.tools.get(toolId) ?? 'tool',
          ok: b.is_error !== true,
          output,
        },
      ];
    }
    default:
      return [];
  }
}

/** Text the CLI itself puts in the user's turn (reminders, command wrappers), not the user's words. */
function isSystemText(text: string): boolean {
  return /^\s*<(system-reminder|command-name|local-command-stdout|command-message)>/.test(text);
}
