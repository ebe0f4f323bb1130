/**
 * The HTTP API's shapes: request bodies validated by the server, responses typed for the CLI
 * and the web UI. Depends only on the event schemas, so any client can import it.
 */
import { z } from 'zod';
import {
  AGENT_NAME,
  AGENT_NAME_RULE,
  DEFAULT_AGENT,
  DEFAULT_PERMISSION_MODE,
  PERMISSION_MODES,
  SessionState,
  StateReason,
} from '../events/index.js';
import { EvidenceMark } from './provenance.js';

/**
 * The largest request body the supervisor reads (1 MiB), refused with 413 before it is buffered.
 * The largest legitimate body, a dispatch with a 100,000-character prompt and a script, fits.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * An agent's name: Baton's own or a user's ACP entry (decision 280). Whether it names a known
 * agent is checked at dispatch, against the registry the supervisor reads then.
 */
export const AgentName = z.string().regex(AGENT_NAME, AGENT_NAME_RULE);
export const PermissionModeSchema = z.enum(PERMISSION_MODES);

export const DispatchRequest = z
  .object({
    prompt: z.string().min(1, 'the prompt is empty').max(100_000),
    /** Any folder inside the repository the session works on. */
    cwd: z.string().min(1),
    name: z.string().optional(),
    agent: AgentName.default(DEFAULT_AGENT),
    model: z.string().min(1).max(200).optional(),
    base: z.string().min(1).max(500).optional(),
    permissionMode: PermissionModeSchema.default(DEFAULT_PERMISSION_MODE),
    /** Agent-specific options, checked by the agent's adapter (e.g. `{script: {...}}`). */
    options: z.record(z.string(), z.unknown()).default({}),
    /** Bring the main checkout's uncommitted changes (tracked and untracked) into the new worktree. */
    carryChanges: z.boolean().optional(),
    /** Continue this existing branch in a new worktree instead of starting `baton/<name>`. */
    branch: z.string().min(1).max(250).optional(),
    /** No worktree: the session works in the main checkout itself, one such session at a time. */
    inPlace: z.boolean().optional(),
    /** More instructions for the agent (a task's context, a routine's brief), added to Baton's own system-prompt instructions; never written into the user's files. */
    instructions: z.string().max(200_000).optional(),
    /** Start although an agent's subscription window is used up or projected to run out (decision 300). */
    force: z.boolean().optional(),
  })
  .strict();
export type DispatchRequest = z.input<typeof DispatchRequest>;

/**
 * A dispatch through the API may name where it runs (decision 127, "A shared workspace in the
 * supervisor"); other dispatchers (tasks, routines) run here.
 */
export const PlacedDispatchRequest = DispatchRequest.extend({
  /** Absent: the configured agent, else the one installed (decision 185); never the scripted one by itself. */
  agent: AgentName.optional(),
  on: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "Where the session runs when the workspace is shared: `any` (here while this machine has a free slot, else the first machine with one) or a machine's name",
    ),
});
export type PlacedDispatchRequest = z.input<typeof PlacedDispatchRequest>;

export const ReplyRequest = z
  .object({
    text: z.string().min(1, 'the reply is empty').max(100_000),
    /** Any id unique to this reply: sent again (a retry after a timeout), the reply is applied once. */
    clientId: z.string().min(1).max(200).optional(),
  })
  .strict();
export const ApprovalRequest = z
  .object({
    decision: z.enum(['allow', 'deny']),
    reason: z.string().max(10_000).optional(),
    requestId: z.string().optional(),
    /** With allow: also allow this command (this tool, for edits) in this repository from now on (an allow rule). */
    always: z.boolean().optional(),
  })
  .strict();
export const PinRequest = z.object({ pinned: z.boolean() }).strict();
export const AcceptDangerousModeRequest = z.object({ cwd: z.string().min(1) }).strict();
export const RespawnAllRequest = z.object({ project: z.string().optional() }).strict();

export const SessionView = z.object({
  id: z.string(),
  name: z.string(),
  project: z.string(),
  projectRoot: z.string(),
  agent: z.string(),
  model: z.string().nullable(),
  permissionMode: z.string(),
  prompt: z.string(),
  state: SessionState,
  reason: StateReason.nullable(),
  pinned: z.boolean(),
  branch: z.string(),
  baseRef: z.string(),
  baseCommit: z.string(),
  worktree: z.string(),
  hostPid: z.number().nullable(),
  running: z.boolean(),
  activity: z.string().nullable(),
  lastSeq: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastEventAt: z.string().nullable(),
  queuePosition: z.number().nullable(),
  /**
   * The task the session works on (decision 71, "Tasks are their own domain beside sessions"), shown
   * beside its questions and approvals.
   */
  task: z
    .object({ id: z.number().int(), title: z.string(), tracker: z.string().nullable() })
    .nullable()
    .optional(),
  /** Why a queued session is held back, as the scheduler last said (a task it waits for, a budget), when it is. */
  heldBy: z.string().optional(),
  /**
   * Ports leased to the session (decision 61, "Ports are leased in SQLite"), when its repository asks
   * for any.
   */
  ports: z.array(z.object({ name: z.string(), port: z.number().int() })).optional(),
  /**
   * The machine running it, when the workspace is shared across machines (decision 127, "A shared
   * workspace in the supervisor").
   */
  machine: z.string().optional(),
  /** Its repository's identity across machines (the sync remote as host and path), when the workspace is shared and the repository has that remote. */
  repo: z.string().optional(),
  /**
   * What Baton checked of its work (decision 290): verified, failing or claimed, and its new tests
   * that pass on the base; absent when there is nothing to say.
   */
  evidence: EvidenceMark.optional(),
  /**
   * Keep-fresh (decision 307): the last rebase onto its moving base, or why it is behind
   * (`conflict`: handed to its agent or left for the user; `behind`: waits for its turn to end,
   * or for a rebase its worktree is in the middle of).
   */
  fresh: z
    .object({ status: z.enum(['rebased', 'conflict', 'behind']), message: z.string(), at: z.string() })
    .optional(),
});
export type SessionView = z.infer<typeof SessionView>;

export const FileChange = z.object({ path: z.string(), status: z.string() });

export const PeekView = z.object({
  session: SessionView,
  currentStep: z.string().nullable(),
  lastOutput: z.string().nullable(),
  filesChanged: z.array(FileChange),
  /** Megabytes the session's processes hold (host, agent, their children; PSS where readable), when its host runs (decision 260). */
  memoryMb: z.number().optional(),
});
export type PeekView = z.infer<typeof PeekView>;

export const RemoveView = z.object({
  session: SessionView,
  /** Where uncommitted work was saved, when there was any. */
  snapshotRef: z.string().nullable(),
  snapshotCommit: z.string().nullable(),
  branchDeleted: z.boolean(),
  /** What could not be done (its repository gone, say), and what was kept instead. */
  notes: z.array(z.string()).optional(),
});
export type RemoveView = z.infer<typeof RemoveView>;

export { DaemonStatus } from './daemon.js';

export interface ApiErrorBody {
  error: { code: string; message: string; data?: Record<string, unknown> };
}

export { STATE_GROUPS } from './groups.js';
