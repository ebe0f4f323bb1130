/** How Baton's MCP tools put the workspace into words for an agent: short, plain text. */
import type { AgentRecordView, SearchView } from '../api/mcp.js';
import type { PeekView, SessionView } from '../api/index.js';
import type { BatonEvent } from '../events/index.js';

const PROMPT_CHARS = 100;
const EVENT_CHARS = 600;

export function sessionLine(s: SessionView, me: string | undefined): string {
  const why =
    s.reason?.kind === 'question'
      ? ` — asks: ${clip(s.reason.text, PROMPT_CHARS)}`
      : s.reason?.kind === 'approval'
        ? ` — waits for approval of ${s.reason.tool}`
        : '';
  return `${s.name}${s.id === me ? ' (you)' : ''} [${s.agent}, ${s.state.replace(/_/g, ' ')}${why}] in ${s.project} on ${s.branch}: ${clip(s.prompt, PROMPT_CHARS)}`;
}

export function sessionList(sessions: SessionView[], me: string | undefined): string {
  if (sessions.length === 0) return 'No sessions.';
  return `${sessions.length} session${sessions.length === 1 ? '' : 's'}:\n${sessions.map((s) => `- ${sessionLine(s, me)}`).join('\n')}`;
}

export function summary(peek: PeekView, me: string | undefined): string {
  const s = peek.session;
  const files = peek.filesChanged.map((f) => `${f.path}`);
  return [
    sessionLine(s, me),
    `Task: ${s.prompt}`,
    ...(peek.currentStep === null ? [] : [`Now: ${peek.currentStep}`]),
    ...(peek.lastOutput === null ? [] : [`Last said: ${clip(peek.lastOutput, EVENT_CHARS)}`]),
    `Files changed: ${files.length === 0 ? 'none' : files.join(', ')}`,
    `Tokens: ${s.inputTokens} in, ${s.outputTokens} out; worktree ${s.worktree}`,
  ].join('\n');
}

/** One line per event that says something: messages, reasoning, tools, questions, states. */
export function transcript(events: BatonEvent[]): string {
  const lines = events.flatMap((e) => {
    const line = eventLine(e);
    return line === undefined ? [] : [`#${e.seq} ${line}`];
  });
  return lines.length === 0 ? 'No messages yet.' : lines.join('\n');
}

function eventLine(e: BatonEvent): string | undefined {
  switch (e.type) {
    case 'message.added':
      return `${e.role === 'assistant' ? 'agent' : e.from === undefined ? 'user' : `message from ${e.from.name}`}: ${clip(e.text, EVENT_CHARS)}`;
    case 'thinking.added':
      return `reasoning: ${clip(e.text, EVENT_CHARS)}`;
    case 'tool.started':
      return `tool ${e.tool}: ${clip(e.input, EVENT_CHARS)}`;
    case 'tool.finished':
      return `tool ${e.tool} ${e.ok ? 'done' : 'failed'}${e.output === undefined ? '' : `: ${clip(e.output, EVENT_CHARS)}`}`;
    case 'question.asked':
      return `asked the user: ${e.text}`;
    case 'question.answered':
      return `the user answered: ${e.text}`;
    case 'state.changed':
      return `state: ${e.to.replace(/_/g, ' ')}`;
    case 'error.raised':
      return `error: ${clip(e.message, EVENT_CHARS)}`;
    default:
      return undefined;
  }
}

export function searchResults(view: SearchView): string {
  if (view.hits.length === 0) return `Nothing found for "${view.query}".`;
  return view.hits
    .map((h) => `- ${h.name} #${h.seq} (${h.type}, ${h.ts.slice(0, 16).replace('T', ' ')}): ${h.snippet}`)
    .join('\n');
}

export function recordLine(r: AgentRecordView): string {
  return `${r.kind} ${r.id} by ${r.author.name}: ${r.title}${r.text !== '' && r.text !== r.title ? ` — ${clip(r.text, PROMPT_CHARS * 2)}` : ''}`;
}

function clip(text: string, chars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars - 1)}…` : flat;
}
