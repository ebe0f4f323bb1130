/** The agent registry. Adapters load lazily so a session host only loads the one it runs. */
import { AgentUnavailableError } from '../shared/errors.js';
import type { AgentAdapter, AgentId } from './types.js';

export type { AgentAdapter, AgentCapabilities, AgentEvent, AgentId, AgentRun, AgentStartOptions, ApprovalDecision, PermissionMode } from './types.js';
export { AGENT_IDS } from './types.js';

const loaders: Record<AgentId, () => Promise<AgentAdapter>> = {
  scripted: async () => (await import('./scripted/index.js')).scriptedAgent,
  claude: () => Promise.reject(new AgentUnavailableError('claude', 'The claude adapter is not available in this build yet.')),
  codex: () => Promise.reject(new AgentUnavailableError('codex', 'The codex adapter is not available in this build yet.')),
};

export function loadAdapter(id: AgentId): Promise<AgentAdapter> {
  return loaders[id]();
}
