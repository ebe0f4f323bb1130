/** What of an event is searchable, and as which kind: messages, reasoning, tool inputs and outputs, questions, errors. */
import type { BatonEvent } from '../events/index.js';

export const SEARCH_KINDS = [
  'message',
  'reasoning',
  'tool_input',
  'tool_output',
  'question',
  'answer',
  'error',
  'decision',
  'note',
] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** Tool output beyond this is not indexed: a huge log would swamp the index and the ranking. */
const MAX_INDEXED_CHARS = 32_000;

export function searchableText(event: BatonEvent): { kind: SearchKind; text: string } | undefined {
  const found = extract(event);
  if (found === undefined || found.text.trim() === '') return undefined;
  return found.text.length > MAX_INDEXED_CHARS
    ? { kind: found.kind, text: found.text.slice(0, MAX_INDEXED_CHARS) }
    : found;
}

function extract(event: BatonEvent): { kind: SearchKind; text: string } | undefined {
  switch (event.type) {
    case 'message.added':
      return { kind: 'message', text: event.text };
    // A turn's prompt: the dispatch's prompt is said nowhere else (a reply's is its message too;
    // `SearchIndex` skips a prompt that repeats the message just indexed).
    case 'turn.started':
      return event.prompt === undefined ? undefined : { kind: 'message', text: event.prompt };
    case 'thinking.added':
      return { kind: 'reasoning', text: event.text };
    case 'tool.started':
      return {
        kind: 'tool_input',
        text: `${event.tool} ${event.input}${event.files === undefined ? '' : ` ${event.files.join(' ')}`}`,
      };
    case 'tool.finished':
      return event.output === undefined ? undefined : { kind: 'tool_output', text: event.output };
    case 'question.asked':
      return { kind: 'question', text: event.text };
    case 'question.answered':
      return { kind: 'answer', text: event.text };
    case 'error.raised':
      return {
        kind: 'error',
        text: event.detail === undefined ? event.message : `${event.message}\n${event.detail}`,
      };
    default:
      return undefined;
  }
}
