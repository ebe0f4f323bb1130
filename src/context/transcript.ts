/**
 * One normalized transcript for a session of any vendor: what was said, thought and done, in
 * order, built from the session's normalized events (a Baton session's log, or the events an
 * import made from a vendor's own file). A tool's start and finish become one entry.
 */
import type { BatonEvent } from '../events/index.js';
import { redactSecrets } from './redact.js';

export type EntryRole =
  'user' | 'assistant' | 'reasoning' | 'tool' | 'question' | 'answer' | 'approval' | 'error';

export interface TranscriptEntry {
  seq: number;
  ts: string;
  role: EntryRole;
  /** The message, the reasoning, the question, or for a tool its name. */
  text: string;
  tool?: string;
  input?: string;
  output?: string;
  ok?: boolean;
  files?: string[];
}

export interface TranscriptHead {
  sessionId: string;
  name: string;
  agent: string;
  /** `baton` for a session Baton ran; the vendor for one imported from its own files. */
  origin: 'baton' | 'claude' | 'codex' | 'gemini' | 'opencode';
  prompt: string;
  cwd: string | null;
  startedAt: string;
}

export interface Transcript extends TranscriptHead {
  entries: TranscriptEntry[];
}

/** The transcript of a session's events, oldest first. */
export function transcriptFromEvents(head: TranscriptHead, events: readonly BatonEvent[]): Transcript {
  const entries: TranscriptEntry[] = [];
  const tools = new Map<string, TranscriptEntry>();
  for (const event of events) {
    const at = { seq: event.seq, ts: event.ts };
    switch (event.type) {
      case 'message.added':
        entries.push({ ...at, role: event.role, text: event.text });
        break;
      case 'thinking.added':
        entries.push({ ...at, role: 'reasoning', text: event.text });
        break;
      case 'tool.started': {
        const entry: TranscriptEntry = {
          ...at,
          role: 'tool',
          text: event.tool,
          tool: event.tool,
          input: event.input,
          ...(event.files === undefined ? {} : { files: event.files }),
        };
        tools.set(event.toolId, entry);
        entries.push(entry);
        break;
      }
      case 'tool.finished': {
        const started = tools.get(event.toolId);
        const entry = started ?? { ...at, role: 'tool' as const, text: event.tool, tool: event.tool };
        if (started === undefined) entries.push(entry);
        entry.ok = event.ok;
        if (event.output !== undefined) entry.output = event.output;
        if (event.files !== undefined) entry.files = [...new Set([...(entry.files ?? []), ...event.files])];
        break;
      }
      case 'question.asked':
        entries.push({ ...at, role: 'question', text: event.text });
        break;
      case 'question.answered':
        entries.push({ ...at, role: 'answer', text: event.text });
        break;
      case 'approval.requested':
        entries.push({
          ...at,
          role: 'approval',
          text: `${event.tool}: ${event.input}${event.reason === undefined ? '' : ` (${event.reason})`}`,
          tool: event.tool,
          input: event.input,
        });
        break;
      case 'error.raised':
        entries.push({ ...at, role: 'error', text: event.message });
        break;
      case 'turn.started':
        // The first turn's prompt is the head's; a later turn's is the user's reply, already a message.
        if (event.prompt !== undefined && !entries.some((e) => e.role === 'user'))
          entries.push({ ...at, role: 'user', text: event.prompt });
        break;
      default:
        break;
    }
  }
  return { ...head, entries };
}

/** The same transcript with every secret in it redacted: the form every export takes. */
export function redactTranscript(transcript: Transcript): Transcript {
  const clean = (text: string | undefined): string | undefined =>
    text === undefined ? undefined : redactSecrets(text);
  return {
    ...transcript,
    prompt: redactSecrets(transcript.prompt),
    entries: transcript.entries.map((entry) => ({
      ...entry,
      text: redactSecrets(entry.text),
      ...(entry.input === undefined ? {} : { input: clean(entry.input) }),
      ...(entry.output === undefined ? {} : { output: clean(entry.output) }),
    })),
  };
}

/** A rough token count (four characters a token), the unit budgets are given in. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The transcript's whole text, as a handoff pack's source is measured. */
export function transcriptText(transcript: Transcript): string {
  return [
    transcript.prompt,
    ...transcript.entries.map((e) => [e.text, e.input, e.output].filter((p) => p !== undefined).join('\n')),
  ].join('\n');
}
