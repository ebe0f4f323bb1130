/**
 * The normalized event union: every agent adapter turns its vendor protocol into these, and the
 * rest of Baton never looks at vendor formats. Events are append-only and sequence-numbered per
 * session; the session host assigns `seq` and `ts` when it writes them to `events.jsonl`.
 *
 * Bump EVENT_SCHEMA_VERSION when a change is not backwards compatible; readers keep accepting
 * older versions.
 */
import { z } from 'zod';
import { exactShapeCheck } from './exact-shape.js';
import { SESSION_STATES } from './states.js';
import { TOOL_KINDS } from './vocabulary.js';

export const EVENT_SCHEMA_VERSION = 1;

export { RESPAWNABLE_STATES, SESSION_STATES } from './states.js';
export const SessionState = z.enum(SESSION_STATES);
export type SessionState = z.infer<typeof SessionState>;

export * from './vocabulary.js';
/**
 * Optional because event logs written before tool kinds existed lack it; read a missing kind
 * as 'other' (it cannot be derived later without the vendor's tool names).
 */
const toolKind = z.enum(TOOL_KINDS).optional();

/** Why a session is in its state: the pending approval or question, or the failure. */
export const StateReason = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('approval'),
    requestId: z.string(),
    tool: z.string(),
    input: z.string(),
    reason: z.string().optional(),
  }),
  z.object({ kind: z.literal('question'), text: z.string() }),
  z.object({ kind: z.literal('error'), message: z.string() }),
  z.object({
    kind: z.literal('note'),
    message: z.string(),
    /** When the session goes on by itself: a usage limit's reset (decision 262); absent: it waits for a reply. */
    until: z.string().optional(),
  }),
]);
export type StateReason = z.infer<typeof StateReason>;

const files = z.array(z.string()).optional();

/** Event bodies, without the envelope. Names are dotted and past tense. */
export const EventBody = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('session.started'),
    agent: z.string(),
    cwd: z.string(),
    model: z.string().optional(),
    hostPid: z.number().int(),
    resumed: z.boolean(),
    /** The sandbox the agent runs in (src/sandbox); `none`: it can read Baton's token. Older logs lack it. */
    sandbox: z.enum(['bubblewrap', 'none']).optional(),
  }),
  z.object({ type: z.literal('agent.identified'), agentSessionId: z.string() }),
  z.object({ type: z.literal('turn.started'), prompt: z.string().optional() }),
  z.object({
    type: z.literal('message.added'),
    role: z.enum(['user', 'assistant']),
    text: z.string(),
    /** A user's reply: the id its client gave it, so a retry is recognised and not applied twice. */
    clientId: z.string().optional(),
    /** A message another session's agent sent through Baton's MCP server (`send_message`), rather than the user's. */
    from: z.object({ sessionId: z.string().nullable(), name: z.string() }).optional(),
  }),
  z.object({ type: z.literal('thinking.added'), text: z.string() }),
  z.object({
    type: z.literal('tool.started'),
    toolId: z.string(),
    tool: z.string(),
    kind: toolKind,
    input: z.string(),
    files,
  }),
  z.object({
    type: z.literal('tool.finished'),
    toolId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    output: z.string().optional(),
    exitCode: z.number().int().optional(),
    files,
  }),
  z.object({
    type: z.literal('approval.requested'),
    requestId: z.string(),
    tool: z.string(),
    kind: toolKind,
    input: z.string(),
    reason: z.string().optional(),
    /** The gate's rule that turned this call into an approval (src/policy): an allow rule never answers it. */
    gate: z.string().optional(),
  }),
  /** The gate refused a tool call before it ran (src/policy): the agent was told why and what to do instead. */
  z.object({
    type: z.literal('tool.blocked'),
    tool: z.string(),
    kind: toolKind,
    input: z.string(),
    rule: z.string(),
    why: z.string(),
    suggest: z.string().optional(),
  }),
  z.object({
    type: z.literal('approval.resolved'),
    requestId: z.string(),
    decision: z.enum(['allow', 'deny']),
    reason: z.string().optional(),
    /** The allow rule the session's host answered it with, before anyone was asked (decision 152). */
    allowRule: z.number().int().optional(),
  }),
  z.object({ type: z.literal('question.asked'), text: z.string() }),
  z.object({ type: z.literal('question.answered'), text: z.string() }),
  z.object({
    type: z.literal('usage.reported'),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cacheReadTokens: z.number().int().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
    model: z.string().optional(),
  }),
  /** The subscription windows the agent reports (Codex, and Claude for a claude.ai login: 5-hour and weekly used-%), as last seen. */
  z.object({
    type: z.literal('limits.reported'),
    windows: z.array(
      z.object({
        /** `5h`, `7d`, …: from the window's length when the agent gives one. */
        name: z.string(),
        usedPercent: z.number().min(0),
        windowMinutes: z.number().int().positive().optional(),
        /** When the window resets (ISO time), if the agent says. */
        resetsAt: z.string().optional(),
      }),
    ),
  }),
  z.object({
    type: z.literal('turn.completed'),
    outcome: z.enum(['success', 'error', 'interrupted']),
    error: z.string().optional(),
    /**
     * The error was the agent's usage limit (decision 262): the window that ran out and when it
     * resets, as far as the agent said. The session pauses rather than fails.
     */
    limit: z.object({ window: z.string().optional(), resetsAt: z.string().optional() }).optional(),
  }),
  z.object({
    type: z.literal('error.raised'),
    message: z.string(),
    fatal: z.boolean(),
    detail: z.string().optional(),
  }),
  z.object({
    type: z.literal('state.changed'),
    from: SessionState.optional(),
    to: SessionState,
    reason: StateReason.optional(),
  }),
  // ── Worktree setup (decision 59, "Setup runs in the session's host"): written by the host while the
  // session is `preparing` ──
  /** One step of making the worktree ready: a copy, a shared folder, a setup command. */
  z.object({
    type: z.literal('setup.step'),
    index: z.number().int().nonnegative(),
    kind: z.enum(['copy', 'share', 'run']),
    label: z.string(),
  }),
  /** Output of the running step, in the order it came (stdout and stderr together). */
  z.object({ type: z.literal('setup.output'), index: z.number().int().nonnegative(), text: z.string() }),
  z.object({
    type: z.literal('setup.finished'),
    ok: z.boolean(),
    durationMs: z.number().nonnegative(),
    error: z.string().optional(),
  }),
  /**
   * The session's work was kept as a checkpoint before a command that discards uncommitted work
   * ran (decision 160): `baton restore <session> <checkpoint>` brings it back. `fresh` is false
   * when the work was unchanged since that checkpoint.
   */
  z.object({
    type: z.literal('work.checkpointed'),
    checkpoint: z.string(),
    ref: z.string(),
    commit: z.string(),
    command: z.string(),
    why: z.string(),
    fresh: z.boolean(),
  }),
  z.object({
    type: z.literal('session.ended'),
    /** `idle`: the host let go, at the watchdog's request, of an agent that had finished its turn and waited unused; a reply resumes it. */
    reason: z.enum(['stopped', 'completed', 'failed', 'host_exited', 'removed', 'idle']),
    message: z.string().optional(),
  }),
]);
export type EventBody = z.infer<typeof EventBody>;
export type EventType = EventBody['type'];
export type EventOf<T extends EventType> = Extract<BatonEvent, { type: T }>;

const envelope = {
  v: z.number().int().positive(),
  seq: z.number().int().positive(),
  ts: z.string(),
};
// One flat discriminated union (each body extended with the envelope) parses ~3× faster than
// an intersection, and ingestion parses every stored line.
const withEnvelope = EventBody.options.map((body) => body.extend(envelope));
export const BatonEvent = z.discriminatedUnion(
  'type',
  withEnvelope as [(typeof withEnvelope)[number], ...(typeof withEnvelope)[number][]],
) as unknown as z.ZodType<BatonEvent>;
export type BatonEvent = z.infer<z.ZodObject<typeof envelope>> & EventBody;

/**
 * Whether a parsed line is exactly an event as the schema has it, every key known (decision 466):
 * then zod's parse would return it unchanged, and it is taken as it is. Any other line is parsed
 * by zod, which gives the error for a malformed one.
 */
const isExactEvent = exactShapeCheck(BatonEvent);

/** Parses one stored event line; throws a ZodError or SyntaxError on malformed input. */
export function parseEventLine(line: string): BatonEvent {
  const raw: unknown = JSON.parse(line);
  return isExactEvent(raw) ? (raw as BatonEvent) : BatonEvent.parse(raw);
}

/**
 * Parses one line of a session's log as `parseEventLine` does, and says whether the line itself
 * may be stored for the event (decision 410): only when the check kept every key the line has, at
 * every depth, so the line parses back to exactly the event checked. A line with a key the schema
 * drops (a newer writer's field, anything a hostile writer added) is not: its checked event is
 * written again instead.
 */
export function parseEventText(line: string): { event: BatonEvent; asWritten: boolean } {
  const raw: unknown = JSON.parse(line);
  if (isExactEvent(raw)) return { event: raw as BatonEvent, asWritten: true };
  const event = BatonEvent.parse(raw);
  return { event, asWritten: typeof raw === 'object' && raw !== null && keptWhole(raw, event) };
}

/**
 * Whether `checked` (the schema's output for `raw`) holds every key `raw` has. The schema neither
 * adds keys (no defaults) nor changes values (no transforms or coercion), so it is enough to count
 * each object's keys against the checked one's and to look inside every object and array.
 */
function keptWhole(raw: unknown, checked: unknown): boolean {
  if (typeof checked !== 'object' || checked === null) return false;
  if (Array.isArray(raw)) {
    if (!Array.isArray(checked) || checked.length !== raw.length) return false;
    for (let i = 0; i < raw.length; i++) {
      const item: unknown = raw[i];
      if (typeof item === 'object' && item !== null && !keptWhole(item, checked[i])) return false;
    }
    return true;
  }
  // Every key of `checked` is one of `raw`'s (the schema adds none, nor an absent optional one),
  // so as many keys means the same keys. `raw` is JSON.parse's: `for…in` sees only its own keys.
  const from = raw as Record<string, unknown>;
  const to = checked as Record<string, unknown>;
  let keys = 0;
  for (const key in from) {
    keys++;
    const value = from[key];
    if (typeof value === 'object' && value !== null && !keptWhole(value, to[key])) return false;
  }
  return keys === Object.keys(to).length;
}

export function makeEvent(seq: number, body: EventBody, now = new Date()): BatonEvent {
  return { v: EVENT_SCHEMA_VERSION, seq, ts: now.toISOString(), ...body };
}
