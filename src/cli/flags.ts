/** Option shapes commander hands to commands; main.ts declares them, commands/ read them. */
import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import {
  AGENT_IDS,
  AGENT_NAME,
  AGENT_NAME_RULE,
  type AgentId,
  type PermissionMode,
} from '../events/vocabulary.js';

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

/**
 * `--agent <name>`'s parser: any well-formed name, Baton's own or a user's ACP entry (decision
 * 280). Whether the name is known is the supervisor's to say, from the registry it reads.
 */
export function agentName(value: string): AgentId {
  // Commander is required here, when it parses, not with this module: the read commands that
  // import it never load commander (decision 27).
  const { InvalidArgumentError } = createRequire(import.meta.url)('commander') as typeof Commander;
  if (!AGENT_NAME.test(value))
    throw new InvalidArgumentError(
      `"${value}" is not an agent name (${AGENT_NAME_RULE}); the agents are ${AGENT_IDS.join(', ')} and your entries in config.json (baton agents).`,
    );
  return value;
}
