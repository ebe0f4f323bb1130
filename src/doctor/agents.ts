/**
 * Which agent a dispatch runs when it names none (decision 185, "A real agent by default"): the
 * configured one (`baton config set agent`, or BATON_AGENT), else the one agent installed on
 * this machine. Baton never falls back to the scripted agent on its own: a user who asked for
 * work must not get a demo that pretends to do it. Whatever is chosen here must be ready —
 * installed and signed in — or the dispatch is refused with the command that fixes it.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AgentOnMachine } from '../api/doctor.js';
import {
  acpSignedIn,
  BUILTIN_ACP_AGENTS,
  findAcpAgent,
  findOnPath,
  isExecutable,
  type AgentId,
} from '../agents/index.js';
import { AgentUnavailableError, errorMessage } from '../shared/errors.js';
import { signedIn } from './checks.js';

/** The real agents Baton looks for first, in the order it offers them. */
export const REAL_AGENTS = ['claude', 'codex'] as const;
/**
 * Looked for when neither of those is installed (decision 281, "The default agent may be an ACP
 * agent"): the built-in Agent Client Protocol agents, in the registry's order.
 */
export const ACP_DEFAULT_AGENTS = BUILTIN_ACP_AGENTS.map((a) => a.name);

const INSTALL: Record<(typeof REAL_AGENTS)[number], string> = {
  claude: 'npm install -g @anthropic-ai/claude-code, then run claude once to sign in',
  codex: 'npm install -g @openai/codex, then codex login',
};

const SIGN_IN: Record<(typeof REAL_AGENTS)[number], string> = {
  claude:
    'run claude once and sign in (/login), or set ANTHROPIC_API_KEY in the environment that starts Baton, then baton daemon stop',
  codex:
    'run codex login, or set OPENAI_API_KEY in the environment that starts Baton, then baton daemon stop',
};

/**
 * The real agents installed here as the user installed them: named by `$BATON_<AGENT>_PATH` or
 * found on PATH. The Claude binary bundled inside the Agent SDK does not count: it comes with
 * Baton, not with a sign-in, so finding it says nothing about what the user means to run.
 * `only`: that agent alone is looked for.
 */
export function agentsOnMachine(env: NodeJS.ProcessEnv, only?: string): AgentOnMachine[] {
  const read = (path: string): string | undefined => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  const wanted = (name: string): boolean => only === undefined || name === only;
  const own = REAL_AGENTS.filter(wanted).map((agent): AgentOnMachine => {
    const named = env[`BATON_${agent.toUpperCase()}_PATH`];
    const path =
      named !== undefined && named !== ''
        ? isExecutable(named)
          ? named
          : undefined
        : findOnPath(agent, env.PATH);
    if (path === undefined) return { agent, fix: INSTALL[agent] };
    const how = signedIn(agent, env, existsSync, read);
    return how === undefined ? { agent, path, fix: SIGN_IN[agent] } : { agent, path, signedIn: how.how };
  });
  const acp = BUILTIN_ACP_AGENTS.filter((entry) => wanted(entry.name)).map((entry): AgentOnMachine => {
    let path: string;
    try {
      path = findAcpAgent(entry, env, env.HOME ?? '/');
    } catch (error) {
      return { agent: entry.name, fix: entry.install ?? errorMessage(error) };
    }
    const how = acpSignedIn(entry, env);
    return how === undefined
      ? { agent: entry.name, path, ...(entry.signIn === undefined ? {} : { fix: entry.signIn.how }) }
      : { agent: entry.name, path, signedIn: how };
  });
  return [...own, ...acp];
}

export interface AgentChoice {
  agent: AgentId;
  /** How it was chosen, for the person who did not name one. */
  note: string;
}

/**
 * The agent of a dispatch that names none. `configured` is the resolved config's `agent`;
 * `found` what `agentsOnMachine` saw. Throws `AgentUnavailableError` naming the fix when the
 * choice is not ready or there is nothing (or too much) to choose from.
 */
export function chooseAgent(
  configured: { id: AgentId; source: string } | undefined,
  found: readonly AgentOnMachine[],
  /** Where a configured agent not on PATH would still be found (the SDK's bundled Claude), if anywhere. */
  elsewhere: (agent: AgentId) => string | undefined = () => undefined,
): AgentChoice {
  if (configured !== undefined) {
    const note = `${configured.id} (${configured.source})`;
    if (configured.id === 'scripted')
      return { agent: 'scripted', note: `the scripted agent (${configured.source})` };
    const it = found.find((a) => a.agent === configured.id);
    // Chosen by name, the bundled binary is a fine way to run it: only its sign-in is checked.
    const path = it?.path ?? elsewhere(configured.id);
    if (it !== undefined) ready({ ...it, path }, note);
    return { agent: configured.id, note };
  }
  // Claude and Codex first, as before ACP agents were looked for: a user with one of them sees
  // no change. Only when neither is installed do the ACP agents installed count (decision 281).
  const real = found.filter(
    (a) => a.path !== undefined && (REAL_AGENTS as readonly string[]).includes(a.agent),
  );
  const installed = real.length > 0 ? real : found.filter((a) => a.path !== undefined);
  if (installed.length === 0)
    throw new AgentUnavailableError(
      'none',
      `No agent is set up: neither claude nor codex is on PATH (nor ${ACP_DEFAULT_AGENTS.join(', ')}), and none is configured. Install one (${INSTALL.claude}; or ${INSTALL.codex}), then baton config set agent <claude|codex>. To try Baton without one, pass --agent scripted (a built-in agent that runs a script, for demos and tests).`,
    );
  if (installed.length > 1)
    throw new AgentUnavailableError(
      'none',
      `Several agents are installed (${installed.map((a) => a.agent).join(', ')}) and none is chosen: baton config set agent <${installed.map((a) => a.agent).join('|')}>, or pass --agent.`,
    );
  const only = installed[0]!;
  ready(only, `${only.agent}, the only agent found on PATH`);
  return {
    agent: only.agent,
    note: `${only.agent}, the only agent found on PATH (baton config set agent <name> to choose another)`,
  };
}

/** Refuses an agent that is not installed or not signed in, naming the fix. */
function ready(agent: AgentOnMachine, chosen: string): void {
  if (agent.path === undefined)
    throw new AgentUnavailableError(
      agent.agent,
      `The agent to run is ${chosen}, but it is not installed: ${agent.fix}. Or pass --agent to run another.`,
    );
  if (agent.signedIn === undefined)
    throw new AgentUnavailableError(
      agent.agent,
      `The agent to run is ${chosen}, but it is not signed in (no key in the supervisor's environment, no sign-in file): ${agent.fix}.`,
    );
}
