/** The agent registry. Adapters load lazily so a session host only loads the one it runs. */
import { findClaude } from './claude/locate.js';
import { findCodex } from './codex/locate.js';
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
export { AGENT_IDS } from '../events/vocabulary.js';

const loaders: Record<AgentId, () => Promise<AgentAdapter>> = {
  scripted: async () => (await import('./scripted/index.js')).scriptedAgent,
  claude: async () => (await import('./claude/index.js')).claudeAgent,
  codex: async () => (await import('./codex/index.js')).codexAgent,
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
  }
}
