/** The agent registry. Adapters load lazily so a session host only loads the one it runs. */
import { findClaude } from './claude/locate.js';
import { findCodex } from './codex/locate.js';
import { acpAgents, builtinAcpAgent, findAcpAgent, type AcpAgentEntry } from './acp/registry.js';
import type { AgentAdapter, AgentId } from './types.js';
import { AGENT_IDS, isBuiltinAgent, type BuiltinAgentId } from '../events/vocabulary.js';
import type { AgentEntryConfig } from '../shared/config.js';
import { InvalidInputError } from '../shared/errors.js';

export type {
  AgentAdapter,
  AgentEvent,
  AgentId,
  AgentRun,
  AgentStartOptions,
  ApprovalDecision,
  GateCall,
  GateVerdict,
  ToolGate,
  BatonMcp,
  McpServerCommand,
  PermissionMode,
  ToolKind,
} from './types.js';
export { BATON_MCP_SERVER } from './types.js';
export { findOnPath, isExecutable } from './locate.js';
export { listAgents, type AgentListing, type AgentSupport } from './catalogue.js';
export { AGENT_IDS } from '../events/vocabulary.js';
export { acpSignedIn, BUILTIN_ACP_AGENTS, findAcpAgent, type AcpAgentEntry } from './acp/registry.js';

const loaders: Record<BuiltinAgentId, () => Promise<AgentAdapter>> = {
  scripted: async () => (await import('./scripted/index.js')).scriptedAgent,
  claude: async () => (await import('./claude/index.js')).claudeAgent,
  codex: async () => (await import('./codex/index.js')).codexAgent,
  gemini: async () => (await import('./acp/index.js')).builtinAcpAdapter('gemini'),
  opencode: async () => (await import('./acp/index.js')).builtinAcpAdapter('opencode'),
  qwen: async () => (await import('./acp/index.js')).builtinAcpAdapter('qwen'),
  copilot: async () => (await import('./acp/index.js')).builtinAcpAdapter('copilot'),
};

/** The user's ACP entries (`agents` of config.json), by name; undefined: none. */
export type UserAgents = Record<string, AgentEntryConfig> | undefined;

/**
 * The user's entry called `name`, or a refusal naming every agent there is (decision 280). A
 * built-in name never reaches here: Baton's own names are refused as entries (decision 243).
 */
export function userAgentEntry(name: AgentId, userAgents: UserAgents): AcpAgentEntry {
  const entry = userAgents?.[name];
  if (entry !== undefined) {
    const [found] = acpAgents({ [name]: entry }).filter((a) => a.source === 'config');
    if (found !== undefined) return found;
  }
  const yours = Object.keys(userAgents ?? {});
  throw new InvalidInputError(
    `Unknown agent "${name}": Baton's agents are ${AGENT_IDS.join(', ')}${yours.length === 0 ? '' : `, and yours ${yours.join(', ')}`}. Add your own ACP agent as "agents": { "${name}": { "command": …, "args": […] } } in config.json (baton agents lists them all).`,
  );
}

/** Throws the refusal `userAgentEntry` gives when `name` is no agent Baton or the user has. */
export function checkAgentName(name: AgentId, userAgents: UserAgents): void {
  if (!isBuiltinAgent(name)) userAgentEntry(name, userAgents);
}

/** The adapter of agent `id`: a built-in one, or the ACP adapter over the user's entry of that name. */
export async function loadAdapter(id: AgentId, userAgents?: UserAgents): Promise<AgentAdapter> {
  if (isBuiltinAgent(id)) return loaders[id]();
  const entry = userAgentEntry(id, userAgents);
  return (await import('./acp/index.js')).acpAdapter(entry);
}

/**
 * The executable a session of `id` would run, found as its adapter finds it (an explicit path
 * in the environment, PATH, a bundled binary); throws `AgentUnavailableError` saying how to
 * install it. The scripted agent is built in.
 */
export function locateAgent(
  id: AgentId,
  env: NodeJS.ProcessEnv,
  cwd: string,
  userAgents?: UserAgents,
): string {
  if (!isBuiltinAgent(id)) return findAcpAgent(userAgentEntry(id, userAgents), env, cwd);
  switch (id) {
    case 'claude':
      return findClaude(undefined, env, cwd);
    case 'codex':
      return findCodex(undefined, env, cwd);
    case 'scripted':
      return process.execPath;
    case 'gemini':
    case 'opencode':
    case 'qwen':
    case 'copilot':
      return findAcpAgent(builtinAcpAgent(id), env, cwd);
  }
}
