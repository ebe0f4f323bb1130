/**
 * The words every layer shares: which agents exist, how their tool calls are approved, and what
 * kind of thing a tool call does. Plain `as const` arrays without zod, so the CLI's fast paths and
 * the web UI can use them without loading schemas; schemas build their enums from these.
 */
/** The agents with adapters of their own, then the Agent Client Protocol agents built into the registry (src/agents/acp). */
export const AGENT_IDS = ['scripted', 'claude', 'codex', 'gemini', 'opencode', 'qwen', 'copilot'] as const;
export type BuiltinAgentId = (typeof AGENT_IDS)[number];
/**
 * An agent's name: one of Baton's own (`AGENT_IDS`) or a user's ACP entry in config.json
 * (decision 280, "Agent names are open to the user's registry entries"). Whether a name is
 * known is the supervisor's to say, at dispatch, from the registry; everywhere else it is a name.
 */
export type AgentId = string;
/** What an agent name looks like: lowercase letters, digits and dashes, starting with a letter (at most 32). */
export const AGENT_NAME = /^[a-z][a-z0-9-]{0,31}$/;
export const AGENT_NAME_RULE =
  'an agent name is lowercase letters, digits and dashes, starting with a letter (at most 32)';
export function isBuiltinAgent(name: string): name is BuiltinAgentId {
  return (AGENT_IDS as readonly string[]).includes(name);
}
export const DEFAULT_AGENT: AgentId = 'scripted';

export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
export const DEFAULT_PERMISSION_MODE: PermissionMode = 'default';
/** Agents edit files and run commands without asking; refused until accepted for the repository. */
export const DANGEROUS_PERMISSION_MODE: PermissionMode = 'bypassPermissions';

/**
 * What a tool call does, whatever the vendor calls the tool. Each adapter maps its own tool
 * names to these; nothing outside `src/agents/` knows vendor tool names.
 */
export const TOOL_KINDS = ['edit', 'read', 'run', 'search', 'web', 'other'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];
