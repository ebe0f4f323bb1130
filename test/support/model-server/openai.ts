/** The fake OpenAI Responses endpoint: reads the input items, streams one scripted reply. */
import { z } from 'zod';
import { countReplies, DEFAULT_USAGE, type Conversation, type Step } from './scenario.js';

// Loose on purpose: codex sends many item kinds; only messages and tool calls matter here.
const Item = z.looseObject({
  type: z.string().optional(),
  role: z.string().optional(),
  content: z.unknown().optional(),
});
export const ResponsesRequest = z.looseObject({
  model: z.string().default('gpt-fake'),
  input: z.array(Item),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

const ASSISTANT_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'reasoning']);

function isAssistant(item: z.infer<typeof Item>): boolean {
  if (item.type === 'message' || item.type === undefined) return item.role === 'assistant';
  return ASSISTANT_ITEMS.has(item.type);
}

/** Text of a user message typed by a person, leaving out the context codex injects. */
function promptText(item: z.infer<typeof Item>): string {
  if ((item.type !== 'message' && item.type !== undefined) || item.role !== 'user') return '';
  return textsOf(item.content)
    .filter((text) => !isInjected(text))
    .join('\n');
}

function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown) => {
    const text = (part as { text?: unknown } | null)?.text;
    return typeof text === 'string' ? [text] : [];
  });
}

function isInjected(text: string): boolean {
  const start = text.trimStart();
  return start === '' || start.startsWith('<') || start.startsWith('# AGENTS.md');
}

export function openaiConversation(request: ResponsesRequest): Conversation {
  const items = request.input;
  let index = -1;
  let prompt = '';
  for (let i = items.length - 1; i >= 0; i--) {
    const text = promptText(items[i]!);
    if (text !== '') {
      index = i;
      prompt = text;
      break;
    }
  }
  const kinds = items.map((item): 'assistant' | 'other' => (isAssistant(item) ? 'assistant' : 'other'));
  return { prompt, repliesSince: countReplies(kinds, index) };
}

export function openaiError(status: number, message: string): string {
  return JSON.stringify({
    error: { message, type: status === 400 ? 'invalid_request_error' : 'server_error', code: null },
  });
}

let counter = 0;

/** The SSE frames of one streamed response. */
export function openaiFrames(step: Step, model: string): string[] {
  const usage = step.usage ?? DEFAULT_USAGE;
  const responseId = `resp_fake_${++counter}`;
  const frames: string[] = [];
  let sequence = 0;
  const send = (event: string, data: Record<string, unknown>): void => {
    frames.push(
      `event: ${event}\ndata: ${JSON.stringify({ type: event, sequence_number: sequence++, ...data })}\n\n`,
    );
  };
  const base = {
    id: responseId,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    output: [],
  };
  send('response.created', { response: { ...base, status: 'in_progress' } });
  send('response.in_progress', { response: { ...base, status: 'in_progress' } });

  const output: Record<string, unknown>[] = [];
  const addItem = (item: Record<string, unknown>, streamBody: (outputIndex: number) => void): void => {
    const outputIndex = output.length;
    send('response.output_item.added', {
      output_index: outputIndex,
      item: { ...item, status: 'in_progress' },
    });
    streamBody(outputIndex);
    const done = { ...item, status: 'completed' };
    send('response.output_item.done', { output_index: outputIndex, item: done });
    output.push(done);
  };

  if (step.thinking !== undefined) {
    const summary = [{ type: 'summary_text', text: step.thinking }];
    addItem({ id: `rs_fake_${++counter}`, type: 'reasoning', summary }, () => undefined);
  }
  if (step.text !== undefined) {
    const text = step.text;
    const itemId = `msg_fake_${++counter}`;
    const part = { type: 'output_text', text, annotations: [] };
    addItem({ id: itemId, type: 'message', role: 'assistant', content: [part] }, (outputIndex) => {
      const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      send('response.content_part.added', { ...at, part: { ...part, text: '' } });
      send('response.output_text.delta', { ...at, delta: text });
      send('response.output_text.done', { ...at, text });
      send('response.content_part.done', { ...at, part });
    });
  }
  for (const tool of step.tools ?? []) {
    const callId = `call_fake_${++counter}`;
    const itemId = `fc_fake_${counter}`;
    if (typeof tool.input === 'string') {
      const input = tool.input;
      addItem(
        { id: itemId, type: 'custom_tool_call', call_id: callId, name: tool.name, input },
        (outputIndex) => {
          send('response.custom_tool_call_input.delta', {
            item_id: itemId,
            output_index: outputIndex,
            delta: input,
          });
          send('response.custom_tool_call_input.done', { item_id: itemId, output_index: outputIndex, input });
        },
      );
    } else {
      const args = JSON.stringify(tool.input);
      const namespace = tool.namespace === undefined ? {} : { namespace: tool.namespace };
      addItem(
        {
          id: itemId,
          type: 'function_call',
          call_id: callId,
          name: tool.name,
          ...namespace,
          arguments: args,
        },
        (outputIndex) => {
          send('response.function_call_arguments.delta', {
            item_id: itemId,
            output_index: outputIndex,
            delta: args,
          });
          send('response.function_call_arguments.done', {
            item_id: itemId,
            output_index: outputIndex,
            arguments: args,
          });
        },
      );
    }
  }
  send('response.completed', {
    response: {
      ...base,
      status: 'completed',
      output,
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  });
  return frames;
}
