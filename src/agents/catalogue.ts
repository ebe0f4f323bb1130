/**
 * Every agent Baton can run, for `baton agents`: the adapters of their own (Claude, Codex, the
 * scripted agent) and the Agent Client Protocol entries, built-in and the user's; each with
 * where it is installed, whether it is signed in, and what Baton can do with it. What an ACP
 * agent supports is what the tests against its real binary showed (test/agents/acp.e2e.test.ts);
 * a user's entry is an agent Baton has not seen, so only the protocol's promises are listed.
 */
import { findClaude } from './claude/locate.js';
import { findCodex } from './codex/locate.js';
import { acpAgents, acpSignedIn, findAcpAgent, type AcpAgentEntry } from './acp/registry.js';
import type { AgentEntryConfig } from '../shared/config.js';
import { errorMessage } from '../shared/errors.js';

export interface AgentSupport {
  approvals: boolean;
  /** How a session continues after its process is gone: the agent's own resume, or none. */
  resume: 'native' | 'new-conversation';
  interrupt: boolean;
  /** What usage the agent reports: tokens and a cost, tokens only, or nothing. */
  usage: 'cost' | 'tokens' | 'none';
  /** Whether Baton imports the agent's own transcripts (`baton import`). */
  import: boolean;
}

export interface AgentListing {
  name: string;
  title: string;
  protocol: 'claude-agent-sdk' | 'codex-app-server' | 'acp' | 'scripted';
  source: 'builtin' | 'config';
  command: string;
  args: string[];
  /** The executable found; absent: not installed, and `fix` says how. */
  path?: string | undefined;
  signedIn?: string | undefined;
  fix?: string | undefined;
  supports: AgentSupport;
}

const FULL: AgentSupport = {
  approvals: true,
  resume: 'native',
  interrupt: true,
  usage: 'cost',
  import: true,
};

/** What the built-in ACP agents do, as their tests found it; a user's entry gets the protocol's baseline. */
const ACP_SUPPORT: Record<string, AgentSupport> = {
  // Gemini CLI 0.61 advertises session/load, but its load wipes the session it loads.
  gemini: { approvals: true, resume: 'new-conversation', interrupt: true, usage: 'tokens', import: false },
  opencode: { approvals: true, resume: 'native', interrupt: true, usage: 'tokens', import: false },
};
const ACP_BASELINE: AgentSupport = {
  approvals: true,
  resume: 'native',
  interrupt: true,
  usage: 'tokens',
  import: false,
};

export function listAgents(
  userAgents: Record<string, AgentEntryConfig> | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): AgentListing[] {
  const own: AgentListing[] = [
    located('claude', 'Claude Code', 'claude-agent-sdk', () => findClaude(undefined, env, cwd)),
    located('codex', 'Codex', 'codex-app-server', () => findCodex(undefined, env, cwd)),
    {
      name: 'scripted',
      title: 'the scripted agent (demos and tests)',
      protocol: 'scripted',
      source: 'builtin',
      command: 'built in',
      args: [],
      path: process.execPath,
      signedIn: 'needs none',
      supports: { approvals: true, resume: 'native', interrupt: true, usage: 'tokens', import: false },
    },
  ];
  return [...own, ...acpAgents(userAgents).map((entry) => acpListing(entry, env, cwd))];
}

function located(
  name: string,
  title: string,
  protocol: AgentListing['protocol'],
  find: () => string,
): AgentListing {
  const base = { name, title, protocol, source: 'builtin' as const, command: name, args: [], supports: FULL };
  try {
    return { ...base, path: find() };
  } catch (error) {
    return { ...base, fix: errorMessage(error) };
  }
}

function acpListing(entry: AcpAgentEntry, env: NodeJS.ProcessEnv, cwd: string): AgentListing {
  const base: AgentListing = {
    name: entry.name,
    title: entry.title,
    protocol: 'acp',
    source: entry.source,
    command: entry.command,
    args: entry.args,
    supports: ACP_SUPPORT[entry.name] ?? ACP_BASELINE,
  };
  let path: string;
  try {
    path = findAcpAgent(entry, env, cwd);
  } catch (error) {
    return { ...base, fix: errorMessage(error) };
  }
  const signedIn = acpSignedIn(entry, env);
  if (signedIn !== undefined || entry.signIn === undefined) return { ...base, path, signedIn };
  return { ...base, path, fix: entry.signIn.how };
}
