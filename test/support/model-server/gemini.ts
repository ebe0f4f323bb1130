/**
 * The fake Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` and
 * `:generateContent`), as Gemini CLI calls it with `GOOGLE_GEMINI_BASE_URL`. The conversation is
 * `contents[]` of `user` and `model` turns; tool calls are `functionCall` parts and their results
 * `functionResponse` parts of a `user` turn, which carry no text and so are not prompts.
 */
import { z } from 'zod';
import { countReplies, DEFAULT_USAGE, type Conversation, type Step } from './scenario.js';

const Part = z.looseObject({ text: z.string().optional(), thought: z.boolean().optional() });
const Content = z.looseObject({ role: z.string().optional(), parts: z.array(Part).default([]) });
export const GenerateRequest = z.looseObject({ contents: z.array(Content).default([]) });
export type GenerateRequest = z.infer<typeof GenerateRequest>;

/** The model named in the path, `…/models/<model>:<method>`. */
export function geminiModelOf(path: string): string {
  return /\/models\/([^/:]+):/.exec(path)?.[1] ?? 'gemini-fake';
}

/**
 * Gemini CLI's own side requests (`:generateContent`: the model router's classifier, the
 * next-speaker and loop checks) are not turns of the scripted conversation: they get an empty
 * JSON verdict, which makes each check stand down.
 */
export function geminiSideReply(): string {
  return JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ text: '{}' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  });
}

function promptText(content: z.infer<typeof Content>): string {
  if (content.role !== 'user') return '';
  return content.parts
    .map((part) => part.text ?? '')
    .filter((text) => text.trim() !== '' && !text.trimStart().startsWith('<'))
    .join('\n');
}

export function geminiConversation(request: GenerateRequest): Conversation {
  const contents = request.contents;
  let index = -1;
  let prompt = '';
  for (let i = contents.length - 1; i >= 0; i--) {
    const text = promptText(contents[i]!);
    if (text !== '') {
      index = i;
      prompt = text;
      break;
    }
  }
  const kinds = contents.map((c): 'assistant' | 'other' => (c.role === 'model' ? 'assistant' : 'other'));
  return { prompt, repliesSince: countReplies(kinds, index) };
}

export function geminiError(status: number, message: string): string {
  const code = status === 400 ? 'INVALID_ARGUMENT' : status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL';
  return JSON.stringify({ error: { code: status, message, status: code } });
}

/** One streamed reply: a frame per part, the last with the finish reason and usage. */
export function geminiFrames(step: Step, model: string): string[] {
  const usage = step.usage ?? DEFAULT_USAGE;
  const parts: Record<string, unknown>[] = [];
  if (step.thinking !== undefined) parts.push({ text: step.thinking, thought: true });
  if (step.text !== undefined) parts.push({ text: step.text });
  for (const tool of step.tools ?? []) {
    const args = typeof tool.input === 'string' ? { input: tool.input } : tool.input;
    parts.push({ functionCall: { name: tool.name, args } });
  }
  if (parts.length === 0) parts.push({ text: '' });
  return parts.map((part, i) => {
    const last = i === parts.length - 1;
    const chunk = {
      candidates: [
        { content: { role: 'model', parts: [part] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
      ],
      ...(last
        ? {
            usageMetadata: {
              promptTokenCount: usage.input,
              candidatesTokenCount: usage.output,
              totalTokenCount: usage.input + usage.output,
            },
          }
        : {}),
      modelVersion: model,
    };
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  });
}
