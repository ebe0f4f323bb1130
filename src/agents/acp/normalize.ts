/**
 * ACP's `session/update` notifications in Baton's event vocabulary. Message and thought chunks
 * are gathered until something else happens (a tool call, the turn's end), so a reply streamed
 * in a hundred chunks is one `message.added`; a tool call is `tool.started` the first time its id
 * is seen (in an update or a permission request) and `tool.finished` when its status is
 * `completed` or `failed`; a plan is told as a checklist. Nothing here decides a state.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { quoteArgv } from '../../shared/shell-quote.js';
import type { AgentEvent, ToolKind } from '../types.js';

/** The part of an ACP tool call (`tool_call`, `tool_call_update`, a permission's `toolCall`) Baton reads. */
export interface AcpToolCall {
  toolCallId: string;
  title?: string | null | undefined;
  kind?: string | null | undefined;
  status?: string | null | undefined;
  rawInput?: unknown;
  rawOutput?: unknown;
  locations?: readonly { path: string; line?: number | null | undefined }[] | null | undefined;
  content?: readonly AcpToolContent[] | null | undefined;
}

type AcpToolContent =
  | { type: 'content'; content: { type: string; text?: string } }
  | { type: 'diff'; path: string; oldText?: string | null; newText: string }
  | { type: 'terminal'; terminalId: string };

/** ACP's tool kinds as Baton's: what the gate, allow rules and the board reason about. */
const KINDS: Record<string, ToolKind> = {
  read: 'read',
  edit: 'edit',
  delete: 'edit',
  move: 'edit',
  search: 'search',
  execute: 'run',
  fetch: 'web',
};

export function batonKind(kind: string | null | undefined): ToolKind {
  return (kind !== null && kind !== undefined && KINDS[kind]) || 'other';
}

/**
 * The tool's name as Baton shows and matches it: ACP names no tool, only a kind and a title, so
 * the kind stands for it (`execute`, `edit`, …) — stable across agents, which allow rules need.
 */
export function toolName(call: AcpToolCall): string {
  return call.kind ?? 'other';
}

/**
 * The files a call touches: its locations and the paths of its diffs, in order, once each;
 * relative to the worktree when inside it, absolute when not (so the gate sees an escape).
 */
export function filesOf(call: AcpToolCall, cwd: string): string[] {
  const paths = [
    ...(call.locations ?? []).map((l) => l.path),
    ...(call.content ?? []).flatMap((c) => (c.type === 'diff' ? [c.path] : [])),
    ...inputPaths(call.rawInput),
  ];
  return [...new Set(paths.map((path) => relativeToCwd(path, cwd)))];
}

/** The path an edit's raw input names, where the agent sends no locations (opencode: `filePath`). */
const PATH_KEYS = ['filePath', 'file_path', 'path'] as const;

/** Keys of a raw input that carry the text a call writes (Claude's Write and Edit, opencode's edit). */
const WRITE_KEYS = ['content', 'new_string', 'newString', 'newText', 'edits'] as const;

/** Whether a call's raw input names a file and carries text to put in it: a write, whatever its label. */
export function writesOf(call: AcpToolCall): boolean {
  const raw = call.rawInput;
  if (raw === null || typeof raw !== 'object' || inputPaths(raw).length === 0) return false;
  const input = raw as Record<string, unknown>;
  return WRITE_KEYS.some((key) => input[key] !== undefined);
}

function inputPaths(raw: unknown): string[] {
  if (raw === null || typeof raw !== 'object') return [];
  const input = raw as Record<string, unknown>;
  return PATH_KEYS.flatMap((key) =>
    typeof input[key] === 'string' && input[key] !== '' ? [input[key]] : [],
  );
}

function relativeToCwd(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const rel = relative(cwd, absolute);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? absolute : rel;
}

/**
 * The command line of a call that runs one: `rawInput.command` (opencode), else the title of an
 * `execute` call — Gemini CLI sends no raw input with a permission request, and titles a shell
 * call with its command line. The gate reads this, so an `execute` call always has one.
 */
export function commandOf(call: AcpToolCall): string | undefined {
  const input = call.rawInput as { command?: unknown } | null | undefined;
  if (typeof input?.command === 'string') return input.command;
  // Codex's shape: the words of the command (`["bash", "-lc", "…"]`), judged as the line that runs them.
  const words = input?.command;
  if (Array.isArray(words) && words.length > 0 && words.every((w) => typeof w === 'string'))
    return quoteArgv(words);
  if (call.kind === 'execute' && typeof call.title === 'string') return call.title;
  return undefined;
}

/** What the call does, in one line: its command, else its title, else its files. */
export function inputOf(call: AcpToolCall, cwd: string): string {
  return commandOf(call) ?? call.title ?? filesOf(call, cwd).join(', ');
}

function outputOf(call: AcpToolCall): string | undefined {
  const texts = (call.content ?? []).flatMap((c) =>
    c.type === 'content' && typeof c.content.text === 'string' ? [c.content.text] : [],
  );
  if (texts.length > 0) return texts.join('\n').slice(0, 4_000);
  if (typeof call.rawOutput === 'string') return call.rawOutput.slice(0, 4_000);
  return undefined;
}

interface PlanEntry {
  content: string;
  status: string;
}

const PLAN_MARKS: Record<string, string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };

export function planText(entries: readonly PlanEntry[]): string {
  return ['Plan:', ...entries.map((e) => `${PLAN_MARKS[e.status] ?? '[ ]'} ${e.content}`)].join('\n');
}

/**
 * Gemini CLI sends each thought as `**<subject>**` and a new line, then the thought; a thought
 * without a subject starts with a bare `****`, which would be read as its first sentence (the
 * reason a handoff pack gives for the next file changed). It is dropped; a real subject stays.
 */
const EMPTY_SUBJECT = /^\*\*\*\*\n/;

export class AcpNormalizer {
  private message = '';
  private thought = '';
  /** Tool calls started and not yet finished: their name, and the files seen so far (updates may leave them out). */
  private readonly open = new Map<string, { name: string; files: string[] }>();
  /** Every tool call seen, so a late update of a finished one is not started again. */
  private readonly seen = new Set<string>();

  constructor(private readonly cwd: string) {}

  /** One `session/update`'s `update`; returns the events it completes. */
  update(update: { sessionUpdate: string } & Record<string, unknown>): AgentEvent[] {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        this.message += textOf(update.content);
        return [];
      case 'agent_thought_chunk': {
        const flushed = this.flushMessage();
        this.thought += textOf(update.content).replace(EMPTY_SUBJECT, '');
        return flushed;
      }
      case 'tool_call':
      case 'tool_call_update':
        return [...this.flush(), ...this.tool(update as unknown as AcpToolCall)];
      case 'plan': {
        const entries = (update.entries as PlanEntry[] | undefined) ?? [];
        return [...this.flush(), { type: 'thinking.added', text: planText(entries) }];
      }
      default:
        return [];
    }
  }

  /** A tool call the agent asks permission for: started now if it was not yet. */
  toolAsked(call: AcpToolCall): AgentEvent[] {
    return [...this.flush(), ...this.tool({ ...call, status: 'pending' })];
  }

  /** What was gathered so far, as whole events (before the turn's end or a tool call). */
  flush(): AgentEvent[] {
    const events: AgentEvent[] = [];
    if (this.thought.trim() !== '') events.push({ type: 'thinking.added', text: this.thought });
    this.thought = '';
    return [...events, ...this.flushMessage()];
  }

  closeOpenTools(why: string): AgentEvent[] {
    const events: AgentEvent[] = [...this.open].map(([toolId, { name }]) => ({
      type: 'tool.finished',
      toolId,
      tool: name,
      ok: false,
      output: why,
    }));
    this.open.clear();
    return events;
  }

  private flushMessage(): AgentEvent[] {
    const text = this.message;
    this.message = '';
    return text.trim() === '' ? [] : [{ type: 'message.added', role: 'assistant', text }];
  }

  private tool(call: AcpToolCall): AgentEvent[] {
    const events: AgentEvent[] = [];
    const id = call.toolCallId;
    const files = filesOf(call, this.cwd);
    if (!this.seen.has(id)) {
      this.seen.add(id);
      this.open.set(id, { name: toolName(call), files });
      events.push({
        type: 'tool.started',
        toolId: id,
        tool: toolName(call),
        kind: batonKind(call.kind),
        input: inputOf(call, this.cwd),
        files,
      });
    }
    const open = this.open.get(id);
    if (open === undefined) return events;
    open.files = [...new Set([...open.files, ...files])];
    if (call.status === 'completed' || call.status === 'failed') {
      this.open.delete(id);
      const output = outputOf(call);
      events.push({
        type: 'tool.finished',
        toolId: id,
        tool: open.name,
        ok: call.status === 'completed',
        ...(output === undefined ? {} : { output }),
        files: open.files,
      });
    }
    return events;
  }
}

function textOf(content: unknown): string {
  const block = content as { type?: string; text?: unknown } | null | undefined;
  return block?.type === 'text' && typeof block.text === 'string' ? block.text : '';
}
