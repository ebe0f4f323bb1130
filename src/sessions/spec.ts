/** What a session host needs to run its session, written by the supervisor before it spawns one. */
import { z } from 'zod';
import { AGENT_NAME, PERMISSION_MODES } from '../events/vocabulary.js';

export const HostSpec = z.object({
  sessionId: z.string(),
  home: z.string(),
  agent: z.string().regex(AGENT_NAME),
  cwd: z.string(),
  /** The repository `cwd` is a worktree of (its main checkout), from the records (decision 201). */
  repository: z.string().optional(),
  prompt: z.string(),
  model: z.string().optional(),
  permissionMode: z.enum(PERMISSION_MODES),
  options: z.record(z.string(), z.unknown()),
  /** Set on respawn: the agent's own conversation id to continue. */
  resumeId: z.string().optional(),
  /** More of Baton's instructions, from other domains (a task's context: scope, decisions, the other sessions). */
  context: z.string().optional(),
  /** Instructions given at dispatch, added to Baton's own (see `agentStartOptions`). */
  instructions: z.string().optional(),
  /** How long the host waits, with no supervisor connected, before it ends itself once idle (0: never). */
  orphanMs: z.number().int().min(0).optional(),
});
export type HostSpec = z.infer<typeof HostSpec>;

/** Requests the supervisor sends a host over its control socket, one JSON object per line. */
export const HostRequest = z.discriminatedUnion('op', [
  z.object({ id: z.number(), op: z.literal('ping') }),
  z.object({
    id: z.number(),
    op: z.literal('reply'),
    text: z.string(),
    clientId: z.string().optional(),
    /** A message from another session's agent (MCP `send_message`): it starts a turn, it never answers a question. */
    from: z.object({ sessionId: z.string().nullable(), name: z.string() }).optional(),
  }),
  /** The agent asks the user through Baton's MCP server (`ask_user`): the session needs input until the user answers. */
  z.object({ id: z.number(), op: z.literal('ask'), text: z.string() }),
  z.object({
    id: z.number(),
    op: z.literal('approval'),
    requestId: z.string().optional(),
    decision: z.enum(['allow', 'deny']),
    reason: z.string().optional(),
  }),
  /** `reason`: the watchdog's pause (a budget, a loop), shown as why the session needs input. */
  z.object({ id: z.number(), op: z.literal('interrupt'), reason: z.string().max(2000).optional() }),
  /** `reason`: why, when it was not the user (the machine lost the session's placement); shown as the stopped state's note. */
  z.object({ id: z.number(), op: z.literal('stop'), reason: z.string().max(2000).optional() }),
  /** The watchdog's idle rule: end the host, keeping the state, unless the session is in use; `message` says why. */
  z.object({ id: z.number(), op: z.literal('release'), message: z.string().max(2000) }),
  z.object({ id: z.number(), op: z.literal('complete') }),
  /**
   * Keep-fresh's rebase (decision 456): hand the agent no reply it queued until `resume`, or until the
   * connection that asked closes (decision 461), or no supervisor watches; refused (conflict) while a
   * turn is under way or a reply is being handed over.
   */
  z.object({ id: z.number(), op: z.literal('hold') }),
  z.object({ id: z.number(), op: z.literal('resume') }),
]);
export type HostRequest = z.infer<typeof HostRequest>;

export interface HostResponse {
  id: number;
  ok: boolean;
  error?: { code: string; message: string };
}

export interface HostInfo {
  pid: number;
  sessionId: string;
  startedAt: string;
  /**
   * Where the host's control socket is. Kept because a long home's sockets follow
   * $XDG_RUNTIME_DIR, which a supervisor started from another shell may not share.
   */
  socket: string;
}
