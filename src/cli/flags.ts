/** Option shapes commander hands to commands; main.ts declares them, commands/ read them. */
import type { AgentId, PermissionMode } from '../events/vocabulary.js';

export interface DispatchFlags {
  name?: string;
  agent: AgentId;
  model?: string;
  base?: string;
  script?: string;
  permissionMode: PermissionMode;
  json?: boolean;
  carryChanges?: boolean;
  branch?: string;
  inPlace?: boolean;
}
