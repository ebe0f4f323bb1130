/** Option shapes commander hands to commands; main.ts declares them, commands/ read them. */
import type { AgentId, PermissionMode } from '../events/vocabulary.js';

export interface DispatchFlags {
  /** Where the session runs when the workspace is shared: `any` or a machine's name. */
  on?: string;
  name?: string;
  /** Absent: the configured agent, else the one installed (decision 185). */
  agent?: AgentId;
  model?: string;
  base?: string;
  script?: string;
  permissionMode: PermissionMode;
  wait?: boolean;
  json?: boolean;
  carryChanges?: boolean;
  branch?: string;
  inPlace?: boolean;
  /** Several attempts at the prompt, compared (`baton attempts`). */
  bestOf?: string;
  agents?: string;
  /** Start although the agent's subscription window is used up or projected to run out. */
  force?: boolean;
}

export interface ReviewFlags {
  json?: boolean;
  open?: boolean;
  project?: string;
  comment?: string;
  to?: string;
  approve?: string;
  viewed?: string;
  requestChanges?: string;
  clear?: string;
}
