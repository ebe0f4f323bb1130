/** The fake Anthropic Messages endpoint: reads the conversation, streams one scripted reply. */
import { z } from 'zod';
import { countReplies, DEFAULT_USAGE, type Conversation, type Step } from './scenario.js';

const Block = z.looseObject({ type: z.string(), text: z.string().optional() });
const Message = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(Block)]) });
export const MessagesRequest = z.looseObject({
  model: z.string().default('claude-fake'),
  stream: z.boolean().optional(),
  messages: z.array(Message),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** Text a user message carries from a person, leaving out the CLI's injected reminders. */
function promptText(message: z.infer<typeof Message>): string {
  if (message.role !== 'user') return '';
  if (typeof message.content === 'string') return isInjected(message.content) ? '' : message.content;
  return message.content
    .filter((b) => b.type === 'text' && b.text !== undefined && !isInjected(b.text))
    .map((b) => b.text)
    .join('\n');
}

function isInjected(text: string): boolean {
  return text.trimStart().startsWith('<system-reminder>');
}

export function anthropicConversation(request: MessagesRequest): Conversation {
  const messages = request.messages;
  let index = -1;
  let prompt = '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = promptText(messages[i]!);
    if (text !== '') {
      index = i;
      prompt = text;
      break;
    }
  }
  const roles = messages.map((m): 'assistant' | 'other' => (m.role === 'assistant' ? 'assistant' : 'other'));
  return { prompt, repliesSince: countReplies(roles, index) };
}

export function anthropicError(status: number, message: string): string {
  const type = status === 400 ? 'invalid_request_error' : status === 529 ? 'overloaded_error' : 'api_error';
  return JSON.stringify({ type: 'error', error: { type, message } });
}

let counter = 0;

/** The SSE frames of one streamed reply. */
export function anthropicFrames(step: Step, model: string): string[] {
  const usage = step.usage ?? DEFAULT_USAGE;
  const id = `msg_fake_${++counter}`;
  const frames: string[] = [];
  const send = (event: string, data: Record<string, unknown>): void => {
    frames.push(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  };
  send('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: 1,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    },
  });
  let index = 0;
  if (step.thinking !== undefined) {
    send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: step.thinking } });
    send('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'fake-signature' } });
    send('content_block_stop', { index });
    index++;
  }
  if (step.text !== undefined) {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index, delta: { type: 'text_delta', text: step.text } });
    send('content_block_stop', { index });
    index++;
  }
  for (const tool of step.tools ?? []) {
    const toolId = `toolu_fake_${++counter}`;
    send('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: toolId, name: tool.name, input: {} },
    });
    const json =
      typeof tool.input === 'string' ? JSON.stringify({ input: tool.input }) : JSON.stringify(tool.input);
    send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json } });
    send('content_block_stop', { index });
    index++;
  }
  const stopReason = (step.tools ?? []).length > 0 ? 'tool_use' : 'end_turn';
  send('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  send('message_stop', {});
  return frames;
}
