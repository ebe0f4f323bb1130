/**
 * The fake OpenAI-compatible Chat Completions endpoint (`POST /v1/chat/completions`), as opencode
 * calls a custom provider's `baseURL`. Tool calls are `tool_calls` on an assistant message and
 * their results `role: "tool"` messages.
 */
import { z } from 'zod';
import { countReplies, DEFAULT_USAGE, type Conversation, type Step } from './scenario.js';

const Message = z.looseObject({ role: z.string(), content: z.unknown().optional() });
export const ChatRequest = z.looseObject({
  model: z.string().default('fake-model'),
  messages: z.array(Message).default([]),
  stream: z.boolean().optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown) => {
    const text = (part as { text?: unknown } | null)?.text;
    return typeof text === 'string' ? [text] : [];
  });
}

/**
 * The user's own words in a message: context the CLI or Baton adds comes as `<tag>…</tag>` blocks
 * (opencode sends them as parts of their own; Qwen Code and Copilot CLI join every block of the
 * prompt into one text, `<current_datetime>…` first), which are left out.
 */
function promptText(message: z.infer<typeof Message>): string {
  if (message.role !== 'user') return '';
  return textsOf(message.content)
    .map((text) => text.replace(/<([a-z][\w-]*)>[\s\S]*?<\/\1>/g, '').trim())
    .filter((text) => text !== '' && !text.startsWith('<'))
    .join('\n');
}

/**
 * opencode's own side requests (a title for the conversation) are not turns of the scripted
 * conversation: they are answered with a title and not counted.
 */
export function isChatSideRequest(request: ChatRequest): boolean {
  const system = request.messages.find((m) => m.role === 'system');
  return system !== undefined && textsOf(system.content).some((t) => t.includes('title generator'));
}

export function chatConversation(request: ChatRequest): Conversation {
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
  const kinds = messages.map((m): 'assistant' | 'other' => (m.role === 'assistant' ? 'assistant' : 'other'));
  return { prompt, repliesSince: countReplies(kinds, index) };
}

export function chatError(status: number, message: string): string {
  return JSON.stringify({
    error: { message, type: status === 400 ? 'invalid_request_error' : 'server_error', code: null },
  });
}

let counter = 0;

/** The SSE frames of one streamed completion: content, tool calls, the finish reason, usage, `[DONE]`. */
export function chatFrames(step: Step, model: string): string[] {
  const usage = step.usage ?? DEFAULT_USAGE;
  const id = `chatcmpl_fake_${++counter}`;
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const frame = (body: Record<string, unknown>): string =>
    `data: ${JSON.stringify({ ...base, ...body })}\n\n`;
  const frames: string[] = [];
  const delta = (d: Record<string, unknown>, finish: string | null = null): void => {
    frames.push(frame({ choices: [{ index: 0, delta: d, finish_reason: finish }] }));
  };
  delta({ role: 'assistant', content: '' });
  if (step.thinking !== undefined) delta({ reasoning_content: step.thinking });
  if (step.text !== undefined) delta({ content: step.text });
  const tools = step.tools ?? [];
  tools.forEach((tool, index) => {
    const args = typeof tool.input === 'string' ? tool.input : JSON.stringify(tool.input);
    delta({
      tool_calls: [
        {
          index,
          id: `call_fake_${++counter}`,
          type: 'function',
          function: { name: tool.name, arguments: args },
        },
      ],
    });
  });
  delta({}, tools.length > 0 ? 'tool_calls' : 'stop');
  frames.push(
    frame({
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
      },
    }),
  );
  frames.push('data: [DONE]\n\n');
  return frames;
}
