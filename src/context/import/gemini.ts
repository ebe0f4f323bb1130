/**
 * Gemini CLI's own session files (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, Gemini CLI
 * 0.61) as normalized events. The first line names the session (`sessionId`); then each line is
 * a message: `user` (the user's words; the context Gemini CLI injects and Baton's instructions
 * are `<…>` blocks, skipped; tool results, which come again on the model's tool calls, skipped)
 * or `gemini` (its thoughts, its tool calls with their results and status, its text). `$set`
 * lines update the session's metadata and are skipped, as are `info`, `error` and any type added
 * later (counted). A message rewritten under the same id within one read is read once.
 */
import type { EventBody } from '../../events/index.js';
import { list, obj, str, type ParsedLine, type ParseState } from './types.js';

export function parseGeminiLine(line: Record<string, unknown>, state: ParseState): ParsedLine {
  if (line.$set !== undefined) return { events: [], skipped: '$set' };
  const type = str(line.type);
  if (type === undefined) {
    const nativeId = str(line.sessionId);
    return { events: [], ...(nativeId === undefined ? {} : { facts: { nativeId } }), skipped: 'metadata' };
  }
  const ts = str(line.timestamp) ?? new Date(0).toISOString();
  const id = str(line.id);
  if (id !== undefined) {
    if (state.tools.has(`message:${id}`)) return { events: [], skipped: `${type}/again` };
    state.tools.set(`message:${id}`, type);
  }
  const bodies = type === 'user' ? user(line) : type === 'gemini' ? model(line) : undefined;
  if (bodies === undefined) return { events: [], skipped: type };
  return {
    events: bodies.map((body) => ({ ts, body })),
    ...(bodies.length === 0 ? { skipped: `${type}/empty` } : {}),
  };
}

function user(line: Record<string, unknown>): EventBody[] {
  const text = list(line.content)
    .map((part) => str(obj(part)?.text) ?? '')
    .filter((t) => t.trim() !== '' && !t.trimStart().startsWith('<'))
    .join('\n')
    .trim();
  return text === '' ? [] : [{ type: 'message.added', role: 'user', text }];
}

function model(line: Record<string, unknown>): EventBody[] {
  const out: EventBody[] = [];
  for (const thought of list(line.thoughts)) {
    const t = obj(thought);
    const text = [str(t?.subject), str(t?.description)].filter((s) => s !== undefined && s !== '').join(': ');
    if (text !== '') out.push({ type: 'thinking.added', text });
  }
  for (const raw of list(line.toolCalls)) {
    const call = obj(raw);
    if (call === undefined) continue;
    const toolId = str(call.id) ?? 'tool';
    const tool = str(call.name) ?? 'tool';
    const args = obj(call.args) ?? {};
    const file = str(args.file_path) ?? str(args.absolute_path);
    out.push({
      type: 'tool.started',
      toolId,
      tool,
      input: str(args.command) ?? JSON.stringify(args),
      ...(file === undefined ? {} : { files: [file] }),
    });
    const output = list(call.result)
      .map((r) => {
        const response = obj(obj(obj(r)?.functionResponse)?.response);
        return str(response?.output) ?? str(response?.error) ?? '';
      })
      .join('\n');
    out.push({ type: 'tool.finished', toolId, tool, ok: str(call.status) === 'success', output });
  }
  const text = typeof line.content === 'string' ? line.content.trim() : '';
  if (text !== '') out.push({ type: 'message.added', role: 'assistant', text });
  return out;
}
