/** One-line, human descriptions of events: the activity line on cards, `peek`, and `logs`. */
import type { BatonEvent, EventBody } from './index.js';
import type { ToolKind } from './vocabulary.js';

export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/**
 * Dollars as every view prints them (decision 154): cents from a dollar up, four places below, so
 * a Codex session's $0.0060 reads the same in `baton cost`, `ls`, `peek`, the board and the page.
 */
export function formatUsd(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** Events logged before tool kinds existed carry none. */
export function toolKindOf(event: { kind?: ToolKind | undefined }): ToolKind {
  return event.kind ?? 'other';
}

/** What the agent is doing, as of this event; undefined when the event says nothing new. */
export function describeActivity(event: EventBody): string | undefined {
  switch (event.type) {
    case 'tool.started': {
      const kind = toolKindOf(event);
      if (kind === 'edit') return `editing ${oneLine(event.files?.[0] ?? event.input, 80)}`;
      if (kind === 'read') return `reading ${oneLine(event.input, 80)}`;
      if (kind === 'search') return `searching ${oneLine(event.input, 80)}`;
      return `running ${event.tool}: ${oneLine(event.input, 80)}`;
    }
    case 'approval.requested':
      return `waiting: approve ${event.tool} \`${oneLine(event.input, 60)}\`?`;
    case 'question.asked':
      return `asks: ${oneLine(event.text, 90)}`;
    case 'tool.blocked':
      return `blocked ${event.tool} (${event.rule}): ${oneLine(event.input, 70)}`;
    case 'message.added':
      return event.role === 'assistant'
        ? `says: ${oneLine(event.text, 90)}`
        : `user: ${oneLine(event.text, 90)}`;
    case 'thinking.added':
      return 'thinking';
    case 'turn.started':
      return 'working';
    case 'turn.completed':
      if (event.outcome === 'error') return `turn failed: ${oneLine(event.error ?? 'error', 90)}`;
      return event.outcome === 'interrupted' ? 'turn interrupted' : 'turn finished';
    case 'error.raised':
      return `error: ${oneLine(event.message, 90)}`;
    case 'session.ended':
      return event.reason === 'idle' ? 'idle: agent let go, a reply resumes it' : `ended (${event.reason})`;
    case 'tool.finished':
      return `finished ${event.tool}${event.ok ? '' : ' (failed)'}`;
    case 'setup.step':
      return `preparing: ${event.kind} ${oneLine(event.label, 80)}`;
    case 'setup.finished':
      return event.ok ? 'worktree ready' : `setup failed: ${oneLine(event.error ?? 'error', 90)}`;
    case 'work.checkpointed':
      return `checkpoint ${event.checkpoint} kept the work before ${oneLine(event.command, 60)}`;
    case 'setup.output':
    case 'session.started':
    case 'agent.identified':
    case 'approval.resolved':
    case 'question.answered':
    case 'usage.reported':
    case 'limits.reported':
    case 'state.changed':
      return undefined;
  }
}

/** A full one-line rendering for `baton logs`. */
export function formatEvent(event: BatonEvent, options: { full?: boolean } = {}): string {
  const time = event.ts.slice(11, 19);
  const line = `${String(event.seq).padStart(4)} ${time} ${event.type.padEnd(18)} ${eventDetail(event)}`;
  if (options.full !== true) return line;
  const whole = fullText(event);
  // The one-line summary, then the text it cut, whole and indented under it.
  const cut = whole !== undefined && (whole.trim().includes('\n') || whole.length > 80);
  return cut ? `${line}\n${indent(whole)}` : line;
}

/** The long text an event carries (a message, a command, a tool's output), when it has one. */
function fullText(event: EventBody): string | undefined {
  switch (event.type) {
    case 'message.added':
    case 'thinking.added':
    case 'question.asked':
    case 'question.answered':
      return event.text;
    case 'turn.started':
      return event.prompt;
    case 'tool.started':
    case 'approval.requested':
    case 'tool.blocked':
      return event.input;
    case 'tool.finished':
      return event.output;
    default:
      return undefined;
  }
}

function indent(text: string): string {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => `       │ ${line}`)
    .join('\n');
}

function eventDetail(event: EventBody): string {
  switch (event.type) {
    case 'session.started':
      return `${event.agent}${event.model ? ` (${event.model})` : ''}${event.resumed ? ' resumed' : ''} in ${event.cwd}${event.sandbox === 'none' ? ', not sandboxed' : event.sandbox === undefined ? '' : `, sandboxed (${event.sandbox})`}`;
    case 'agent.identified':
      return event.agentSessionId;
    case 'turn.started':
      return event.prompt === undefined ? '' : oneLine(event.prompt);
    case 'message.added':
      return `${event.role}: ${oneLine(event.text, 200)}`;
    case 'thinking.added':
      return oneLine(event.text);
    case 'tool.started':
      return `${event.tool} ${oneLine(event.input)}`;
    case 'tool.finished':
      return `${event.tool} ${event.ok ? 'ok' : 'failed'}${event.exitCode === undefined ? '' : ` (exit ${event.exitCode})`}${event.output ? ` ${oneLine(event.output, 100)}` : ''}`;
    case 'approval.requested':
      return `${event.tool} ${oneLine(event.input)}${event.reason ? ` — ${event.reason}` : ''}`;
    case 'tool.blocked':
      return `${event.tool} ${oneLine(event.input)} — ${event.rule}: ${event.why}`;
    case 'approval.resolved':
      return `${event.decision}${event.reason ? `: ${event.reason}` : ''}`;
    case 'question.asked':
    case 'question.answered':
      return oneLine(event.text, 200);
    case 'usage.reported':
      return `in ${event.inputTokens} out ${event.outputTokens}${event.costUsd === undefined ? '' : ` $${event.costUsd.toFixed(4)}`}`;
    case 'limits.reported':
      return event.windows.map((w) => `${w.name} ${Math.round(w.usedPercent)}% used`).join(', ');
    case 'turn.completed':
      return event.outcome + (event.error ? `: ${oneLine(event.error)}` : '');
    case 'error.raised':
      return `${event.fatal ? 'fatal: ' : ''}${oneLine(event.message, 200)}`;
    case 'state.changed':
      return `${event.from ?? '-'} → ${event.to}${event.reason ? ` (${reasonText(event.reason)})` : ''}`;
    case 'session.ended':
      return event.reason + (event.message ? `: ${event.message}` : '');
    case 'setup.step':
      return `${event.index + 1}. ${event.kind} ${oneLine(event.label)}`;
    case 'setup.output':
      return oneLine(event.text, 200);
    case 'work.checkpointed':
      return `${event.checkpoint}${event.fresh ? '' : ' (unchanged)'} ${event.ref} before ${oneLine(event.command)}: it ${event.why}`;
    case 'setup.finished':
      return `${event.ok ? 'ready' : 'failed'} in ${(event.durationMs / 1000).toFixed(1)} s${event.error ? `: ${oneLine(event.error, 200)}` : ''}`;
  }
}

/** `max`: how much of a question, error or note a line keeps (a detail view such as `peek` keeps more). */
export function reasonText(
  reason: NonNullable<Extract<EventBody, { type: 'state.changed' }>['reason']>,
  max = 120,
): string {
  switch (reason.kind) {
    case 'approval':
      return `approve ${reason.tool}: ${oneLine(reason.input, 80)}${reason.reason ? ` — ${reason.reason}` : ''}`;
    case 'question':
      return oneLine(reason.text, max);
    case 'error':
    case 'note':
      return oneLine(reason.message, max);
  }
}

/** "1.2 GB" / "350 MB": memory as said to the user (decision 260). */
export function formatMb(mb: number): string {
  if (mb >= 1000) return `${(mb / 1024).toFixed(1)} GB`;
  return `${Math.max(0, Math.round(mb))} MB`;
}
