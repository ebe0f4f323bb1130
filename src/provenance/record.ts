/**
 * What Baton knows of one turn of a session, gathered from its events as they are ingested: the
 * prompt the turn answered, the tool calls that touched files, the agent and model, where it sits
 * in the transcript, and the decisions it cited. The tracker is pure and cheap (a few field writes
 * per event): it runs on every ingested event of every session, so its cost is the bench's "per
 * edit event" figure (decision 251, "Provenance is gathered per event and written per turn").
 */
import type { BatonEvent } from '../events/index.js';
import { claimsCheck } from './evidence.js';

/** How much of a prompt a record keeps: enough to recognise it, small enough for a git note per commit. */
export const PROMPT_EXCERPT = 2_000;
/** How much of the turn's last reply a record keeps. */
export const REPLY_EXCERPT = 500;
/** Tool calls kept per turn (a turn that edits more files keeps the first ones; the snapshot still has every line). */
export const TOOLS_KEPT = 50;

export interface TurnTool {
  tool: string;
  files: string[];
}

/** One turn, as written into its turn commit and into the notes of every commit its lines land in. */
export interface TurnRecord {
  v: 1;
  sessionId: string;
  name: string;
  turn: number;
  agent: string;
  model: string | null;
  task: number | null;
  /** The prompt (turn 1) or the reply the turn answered. */
  prompt: string;
  /** The turn's last message from the agent. */
  reply: string | null;
  outcome: 'success' | 'error' | 'interrupted';
  /** The turn's place in the session's transcript: `baton transcript <name>` events startSeq..endSeq. */
  startSeq: number;
  endSeq: number;
  /** Tool calls that named files. */
  tools: TurnTool[];
  /** Decisions the turn cited ("decision 12", a file under .baton/decisions/). */
  decisions: string[];
  /** Commands the agent ran that claim to check its work (tests, lint, a type check). */
  checks?: string[];
  /** The session this one was handed off from, when it was started by `baton handoff`. */
  handoffFrom: string | null;
  at: string;
}

export interface SessionFacts {
  sessionId: string;
  name: string;
  agent: string;
  model: string | null;
  task: number | null;
  prompt: string;
}

/** A turn under way. */
interface Open {
  turn: number;
  startSeq: number;
  prompt: string | undefined;
  lastUser: string | undefined;
  reply: string | undefined;
  model: string | undefined;
  tools: TurnTool[];
  decisions: Set<string>;
  checks: string[];
}

const DECISION_NUMBER = /\bdecisions?\s+#?(\d{1,5})\b/gi;
const DECISION_FILE = /\.baton\/decisions\/[\w./-]+/g;

/**
 * Follows one session's events. `turns` is the number of turns already seen (read back from the
 * event store after a restart), so turn numbers go on where they were.
 */
export class TurnTracker {
  private open: Open | undefined;
  private lastUser: string | undefined;
  private model: string | undefined;

  constructor(private turns = 0) {}

  /** Feeds one event; returns the finished turn's facts when `event` ends one. */
  add(
    event: BatonEvent,
  ):
    | (Omit<Open, 'decisions'> & { decisions: string[]; endSeq: number; outcome: TurnRecord['outcome'] })
    | undefined {
    switch (event.type) {
      case 'session.started':
        if (event.model !== undefined) this.model = event.model;
        return undefined;
      case 'usage.reported':
        if (event.model !== undefined) {
          this.model = event.model;
          if (this.open !== undefined) this.open.model = event.model;
        }
        return undefined;
      case 'message.added':
        if (event.role === 'user') {
          this.lastUser = event.text;
          if (this.open !== undefined) this.open.lastUser ??= event.text;
        } else if (this.open !== undefined) {
          this.open.reply = event.text;
          cite(this.open.decisions, event.text);
        }
        return undefined;
      case 'thinking.added':
        if (this.open !== undefined) cite(this.open.decisions, event.text);
        return undefined;
      case 'turn.started':
        this.turns += 1;
        this.open = {
          turn: this.turns,
          startSeq: event.seq,
          prompt: event.prompt ?? this.lastUser,
          lastUser: undefined,
          reply: undefined,
          model: this.model,
          tools: [],
          decisions: new Set(),
          checks: [],
        };
        this.lastUser = undefined;
        return undefined;
      case 'tool.started':
        if (this.open === undefined) return undefined;
        cite(this.open.decisions, event.input);
        if (event.kind === 'run' && this.open.checks.length < 10 && claimsCheck(event.input))
          this.open.checks.push(excerpt(event.input, 200));
        if (event.files !== undefined && event.files.length > 0 && this.open.tools.length < TOOLS_KEPT)
          this.open.tools.push({ tool: event.tool, files: event.files.slice(0, 20) });
        return undefined;
      case 'turn.completed': {
        const open = this.open;
        this.open = undefined;
        if (open === undefined) return undefined;
        return {
          ...open,
          prompt: open.prompt ?? open.lastUser,
          decisions: [...open.decisions].slice(0, 20),
          endSeq: event.seq,
          outcome: event.outcome,
        };
      }
      default:
        return undefined;
    }
  }

  /** The turn under way, if any. */
  get current(): number | undefined {
    return this.open?.turn;
  }
}

function cite(into: Set<string>, text: string): void {
  if (into.size >= 20 || !/decision/i.test(text)) return;
  for (const match of text.matchAll(DECISION_NUMBER)) into.add(`decision ${match[1]}`);
  for (const match of text.matchAll(DECISION_FILE)) into.add(match[0]);
}

/** The record of a finished turn. */
export function turnRecord(
  facts: SessionFacts,
  turn: NonNullable<ReturnType<TurnTracker['add']>>,
  handoffFrom: string | null,
  at: Date,
): TurnRecord {
  return {
    v: 1,
    sessionId: facts.sessionId,
    name: facts.name,
    turn: turn.turn,
    agent: facts.agent,
    model: turn.model ?? facts.model,
    task: facts.task,
    prompt: excerpt(turn.prompt ?? (turn.turn === 1 ? facts.prompt : ''), PROMPT_EXCERPT),
    reply: turn.reply === undefined ? null : excerpt(turn.reply, REPLY_EXCERPT),
    outcome: turn.outcome,
    startSeq: turn.startSeq,
    endSeq: turn.endSeq,
    tools: turn.tools,
    decisions: turn.decisions,
    checks: turn.checks,
    handoffFrom,
    at: at.toISOString(),
  };
}

export function excerpt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const RECORD_TRAILER = 'Baton-Provenance: ';

/** A turn commit's message: readable in `git log`, the record on one trailer line. */
export function turnMessage(record: TurnRecord): string {
  const first = record.prompt.split('\n').find((line) => line.trim() !== '') ?? '';
  return [
    `baton: turn ${record.turn} of session ${record.name}`,
    '',
    excerpt(first.trim(), 200),
    '',
    `${RECORD_TRAILER}${JSON.stringify(record)}`,
    `Baton-Session: ${record.sessionId}`,
    `Baton-Turn: ${record.turn}`,
    '',
  ].join('\n');
}

/** The record in a turn commit's message; undefined for any other commit (or one whose record does not read). */
export function recordOf(message: string): TurnRecord | undefined {
  const line = message.split('\n').find((l) => l.startsWith(RECORD_TRAILER));
  if (line === undefined) return undefined;
  try {
    const parsed = JSON.parse(line.slice(RECORD_TRAILER.length)) as Partial<TurnRecord>;
    if (parsed.v !== 1 || typeof parsed.sessionId !== 'string' || typeof parsed.turn !== 'number')
      return undefined;
    return parsed as TurnRecord;
  } catch {
    return undefined;
  }
}
