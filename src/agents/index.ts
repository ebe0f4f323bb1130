/** The agent registry. Adapters load lazily so a session host only loads the one it runs. */
import { findClaude } from './claude/locate.js';
import { findCodex } from './codex/locate.js';
import { builtinAcpAgent, findAcpAgent } from './acp/registry.js';
import type { AgentAdapter, AgentId } from './types.js';

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
  McpServerCommand,
  PermissionMode,
  ToolKind,
} from './types.js';
export { BATON_MCP_SERVER } from './types.js';
export { findOnPath, isExecutable } from './locate.js';
export { listAgents, type AgentListing, type AgentSupport } from './catalogue.js';
export { AGENT_IDS } from '../events/vocabulary.js';

const loaders: Record<AgentId, () => Promise<AgentAdapter>> = {
  scripted: async () => (await import('./scripted/index.js')).scriptedAgent,
  claude: async () => (await import('./claude/index.js')).claudeAgent,
  codex: async () => (await import('./codex/index.js')).codexAgent,
  gemini: async () => (await import('./acp/index.js')).builtinAcpAdapter('gemini'),
  opencode: async () => (await import('./acp/index.js')).builtinAcpAdapter('opencode'),
  qwen: async () => (await import('./acp/index.js')).builtinAcpAdapter('qwen'),
  copilot: async () => (await import('./acp/index.js')).builtinAcpAdapter('copilot'),
};

export function loadAdapter(id: AgentId): Promise<AgentAdapter> {
  return loaders[id]();
}

/**
 * The executable a session of `id` would run, found as its adapter finds it (an explicit path
 * in the environment, PATH, a bundled binary); throws `AgentUnavailableError` saying how to
 * install it. The scripted agent is built in.
 */
export function locateAgent(id: AgentId, env: NodeJS.ProcessEnv, cwd: string): string {
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
