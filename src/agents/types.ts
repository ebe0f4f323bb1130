/**
 * One interface for every agent. Each agent lives in its own folder and turns its native
 * protocol into normalized event bodies through `emit`, naming the kind of every tool it uses.
 */
import type { EventBody } from '../events/index.js';
import type { AgentId, PermissionMode, ToolKind } from '../events/vocabulary.js';
import type { CommandSandbox } from '../sandbox/index.js';

export type { AgentId, PermissionMode, ToolKind } from '../events/vocabulary.js';

type HostOnly =
  | 'session.started'
  | 'state.changed'
  | 'session.ended'
  | 'approval.resolved'
  | 'question.answered'
  | 'setup.step'
  | 'setup.output'
  | 'setup.finished'
  | 'work.checkpointed';
/** Stored events may lack `kind` (older logs); an adapter must always say it. */
type WithKind<E> = E extends { type: 'tool.started' | 'approval.requested' } ? E & { kind: ToolKind } : E;

/** Events an adapter may emit; the host adds the envelope and the events only it knows. */
export type AgentEvent = WithKind<Exclude<EventBody, { type: HostOnly }>>;

export interface AgentStartOptions {
  sessionId: string;
  /** The session's worktree: the agent works here and nowhere else. */
  cwd: string;
  prompt: string;
  model?: string | undefined;
  permissionMode: PermissionMode;
  /** The agent's own conversation id from an earlier run (`agent.identified`), to resume. */
  resumeId?: string | undefined;
  /** A folder private to this session where the adapter may keep state across restarts. */
  stateDir: string;
  /** Agent-specific options from the dispatch (e.g. the scripted agent's script path). */
  options: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /**
   * Whose own setup the agent loads, in the agent's terms (Claude: `user`, `project`, `local`;
   * Codex: `user` for CODEX_HOME, `project` for AGENTS.md). Unset: all of them, as the agent's
   * own CLI would; `[]` loads none.
   */
  settingSources?: readonly string[] | undefined;
  /**
   * The destructive-action gate (src/policy), asked before every tool call in every permission
   * mode: `block` refuses the call, `ask` makes it an approval even where the mode asks nothing.
   */
  gate?: ToolGate | undefined;
  /** Baton's own instructions, appended to the agent's system prompt; never written to the user's files. */
  instructions?: string | undefined;
  /**
   * Baton's MCP server for this session (scoped to it by its credential), which each adapter adds
   * to its agent's MCP servers, in its agent's terms, as `baton`: the supervisor's streamable HTTP
   * endpoint when `http` is set and the agent can use it, else the stdio `baton mcp` command.
   */
  batonMcp?: BatonMcp | undefined;
  /**
   * Every process the adapter starts (the agent's CLI, the scripted agent's commands) goes
   * through `sandbox.wrap`, so it and all it starts run with Baton's state folder hidden
   * (src/sandbox). Unset: run as is.
   */
  sandbox?: CommandSandbox | undefined;
}

/** A stdio MCP server to start: the command, its arguments and the variables it needs. */
export interface McpServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The folder it runs in: the session's worktree, never the main checkout. */
  cwd: string;
}

/**
 * Where an agent reaches Baton's MCP server (decision 365, "One MCP server in the supervisor, over
 * streamable HTTP"): the supervisor's endpoint on loopback, with the session's own credential as
 * the bearer — read by the agent from the variable `tokenVariable` of its environment, so the
 * credential is never on a command line — or, as the fallback, `baton mcp` on stdio.
 */
export interface BatonMcp {
  http?: { url: string; tokenVariable: string; token: string } | undefined;
  stdio: McpServerCommand;
}

/** The name Baton's MCP server goes by among the agent's MCP servers (Claude's tools: `mcp__baton__<tool>`). */
export const BATON_MCP_SERVER = 'baton';
/** A tool call as the gate sees it, whatever the vendor calls the tool. */
export interface GateCall {
  tool: string;
  kind: ToolKind;
  /** The command line, for a tool that runs one. */
  command?: string | undefined;
  /** The files an edit writes. */
  paths?: readonly string[] | undefined;
}

export interface GateVerdict {
  action: 'allow' | 'ask' | 'block';
  rule?: string | undefined;
  why?: string | undefined;
  suggest?: string | undefined;
}

export type ToolGate = (call: GateCall) => GateVerdict;

export interface ApprovalDecision {
  decision: 'allow' | 'deny';
  reason?: string | undefined;
}

/** A running agent. Every method may be called at any time; irrelevant calls are no-ops. */
export interface AgentRun {
  /** A follow-up user message: starts a new turn, or answers a pending question. */
  reply(text: string): Promise<void>;
  resolveApproval(requestId: string, decision: ApprovalDecision): Promise<void>;
  /** Ends the current turn (killing a running tool); the conversation stays usable. */
  interrupt(): Promise<void>;
  /** Ends the agent and everything it started. */
  close(): Promise<void>;
  /** Settles when the agent has ended for good (closed, or its process exited). */
  readonly exited: Promise<{ error?: string | undefined }>;
}

export interface AgentAdapter {
  readonly id: AgentId;
  /**
   * Checks the dispatch options before any worktree is created, so bad input fails early and
   * leaves nothing half-made. Returns the options to store with the session.
   */
  validateOptions(options: Record<string, unknown>, cwd: string): Record<string, unknown>;
  start(options: AgentStartOptions, emit: (event: AgentEvent) => void): Promise<AgentRun>;
}
