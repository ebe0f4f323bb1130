/** The agent registry. Adapters load lazily so a session host only loads the one it runs. */
import type { AgentAdapter, AgentId } from './types.js';

export type {
  AgentAdapter,
  AgentEvent,
  AgentId,
  AgentRun,
  AgentStartOptions,
  ApprovalDecision,
  McpServerCommand,
  PermissionMode,
  ToolKind,
} from './types.js';
export { BATON_MCP_SERVER } from './types.js';
export { AGENT_IDS } from '../events/vocabulary.js';

const loaders: Record<AgentId, () => Promise<AgentAdapter>> = {
  scripted: async () => (await import('./scripted/index.js')).scriptedAgent,
  claude: async () => (await import('./claude/index.js')).claudeAgent,
  codex: async () => (await import('./codex/index.js')).codexAgent,
};

export function loadAdapter(id: AgentId): Promise<AgentAdapter> {
  return loaders[id]();
}
