/**
 * The Agent Client Protocol agents Baton knows: built-in entries for the well-known ones (the
 * command that starts each in ACP mode over stdio, how to install it, how to tell it is signed
 * in), and the user's own entries from `$BATON_HOME/config.json` (`agents.<name> = { command,
 * args, env }`, decision 243). An entry is all a session needs: the adapter is the same for all.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { AgentEntryConfig } from '../../shared/config.js';
import { AgentUnavailableError, InvalidInputError } from '../../shared/errors.js';
import { findOnPath, isExecutable } from '../locate.js';

export interface AcpAgentEntry {
  name: string;
  /** The product's name, for people. */
  title: string;
  command: string;
  args: string[];
  /** Variables added to the agent's environment. */
  env: Record<string, string>;
  /** `builtin` for Baton's own entries, `config` for the user's. */
  source: 'builtin' | 'config';
  /** How to install it (built-in entries). */
  install?: string | undefined;
  /** How it signs in: variables any of which is a key, files (under HOME) any of which is a sign-in. */
  signIn?: { env: string[]; files: string[]; how: string } | undefined;
}

/**
 * The built-in entries. opencode allows edits and commands without asking by default; its entry
 * makes it ask (`OPENCODE_PERMISSION`), so that every call reaches Baton's gate and Baton's own
 * permission mode decides what runs unasked (decision 241). Neither agent reads config from the
 * worktree, which the agent itself can write: Gemini CLI runs with the workspace untrusted
 * (`GEMINI_CLI_TRUST_WORKSPACE=false`: no `.gemini/settings.json`, policies, hooks or agents of
 * the worktree's), opencode without project config (`OPENCODE_DISABLE_PROJECT_CONFIG`: no
 * `opencode.json` or `.opencode/` of the worktree's) — decision 283. The entry's variables are
 * set over the environment Baton passes, so neither can be turned back on from there.
 */
export const BUILTIN_ACP_AGENTS: readonly AcpAgentEntry[] = [
  {
    name: 'gemini',
    title: 'Gemini CLI',
    command: 'gemini',
    args: ['--acp'],
    env: { GEMINI_CLI_TRUST_WORKSPACE: 'false' },
    source: 'builtin',
    install: 'npm install -g @google/gemini-cli, then run gemini once to sign in',
    signIn: {
      env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI'],
      files: ['.gemini/oauth_creds.json'],
      how: 'run gemini once and sign in, or set GEMINI_API_KEY in the environment that starts Baton, then baton daemon stop',
    },
  },
  {
    name: 'opencode',
    title: 'opencode',
    command: 'opencode',
    args: ['acp'],
    env: {
      OPENCODE_PERMISSION: JSON.stringify({
        edit: 'ask',
        bash: 'ask',
        webfetch: 'ask',
        external_directory: 'ask',
      }),
      OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    },
    source: 'builtin',
    install: 'npm install -g opencode-ai, then opencode auth login',
    signIn: {
      env: ['OPENCODE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENCODE_CONFIG_CONTENT'],
      files: ['.local/share/opencode/auth.json'],
      how: 'run opencode auth login, or name a provider in its config',
    },
  },
  {
    name: 'qwen',
    title: 'Qwen Code',
    command: 'qwen',
    args: ['--acp'],
    env: {},
    source: 'builtin',
    install: 'npm install -g @qwen-code/qwen-code, then run qwen once to sign in',
    signIn: {
      env: ['OPENAI_API_KEY', 'DASHSCOPE_API_KEY'],
      files: ['.qwen/oauth_creds.json'],
      how: 'run qwen once and sign in, or set OPENAI_API_KEY for an OpenAI-compatible provider',
    },
  },
  {
    name: 'copilot',
    title: 'GitHub Copilot CLI',
    command: 'copilot',
    args: ['--acp', '--stdio'],
    env: {},
    source: 'builtin',
    install: 'npm install -g @github/copilot, then run copilot once and /login',
    signIn: {
      env: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'],
      files: ['.copilot/config.json'],
      how: 'run copilot once and /login, or set GH_TOKEN',
    },
  },
];

export const BUILTIN_ACP_NAMES = ['gemini', 'opencode', 'qwen', 'copilot'] as const;
export type BuiltinAcpName = (typeof BUILTIN_ACP_NAMES)[number];

/** Every ACP agent: the built-in entries, then the user's. */
export function acpAgents(config: Record<string, AgentEntryConfig> | undefined): AcpAgentEntry[] {
  const user = Object.entries(config ?? {}).map(([name, entry]): AcpAgentEntry => ({
    name,
    title: name,
    command: entry.command,
    args: entry.args ?? [],
    env: entry.env ?? {},
    source: 'config',
  }));
  return [...BUILTIN_ACP_AGENTS, ...user];
}

export function builtinAcpAgent(name: BuiltinAcpName): AcpAgentEntry {
  const entry = BUILTIN_ACP_AGENTS.find((a) => a.name === name);
  if (entry === undefined) throw new InvalidInputError(`No built-in ACP agent is called "${name}".`);
  return entry;
}

/** The variable that names an agent's executable, e.g. `BATON_GEMINI_PATH`. */
export function pathVariable(name: string): string {
  return `BATON_${name.toUpperCase().replace(/-/g, '_')}_PATH`;
}

/**
 * The executable an entry runs: the dispatch's explicit path, else `$BATON_<NAME>_PATH`, else its
 * command (a path, or a name on PATH). Throws `AgentUnavailableError` saying how to install it.
 */
export function findAcpAgent(
  entry: AcpAgentEntry,
  env: NodeJS.ProcessEnv,
  cwd: string,
  explicit?: unknown,
): string {
  const variable = pathVariable(entry.name);
  const hint = `${entry.install === undefined ? `Install ${entry.title}` : entry.install}, or point Baton at it with $${variable}=/path/to/${entry.command} in the environment of the supervisor (\`baton daemon stop\` first).`;
  if (explicit !== undefined) {
    if (typeof explicit !== 'string' || explicit === '')
      throw new InvalidInputError(`The path of ${entry.title} must be a path to its executable.`);
    const path = isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
    if (!isExecutable(path))
      throw new AgentUnavailableError(entry.name, `${path} is not an executable file. ${hint}`);
    return path;
  }
  const named = env[variable];
  if (named !== undefined && named !== '') {
    if (!isExecutable(named))
      throw new AgentUnavailableError(
        entry.name,
        `$${variable} (${named}) is not an executable file. ${hint}`,
      );
    return named;
  }
  const command = entry.command;
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    if (!isExecutable(path))
      throw new AgentUnavailableError(
        entry.name,
        `${entry.title}'s command ${path} is not an executable file. ${hint}`,
      );
    return path;
  }
  const found = findOnPath(command, env.PATH);
  if (found === undefined)
    throw new AgentUnavailableError(entry.name, `${entry.title} (${command}) was not found on PATH. ${hint}`);
  return found;
}

/** How the agent is signed in, as far as Baton can tell; undefined: no sign-in found. User entries: not known. */
export function acpSignedIn(entry: AcpAgentEntry, env: NodeJS.ProcessEnv): string | undefined {
  if (entry.signIn === undefined) return undefined;
  const merged = { ...env, ...entry.env };
  for (const key of entry.signIn.env) if (merged[key]) return `$${key}`;
  const home = env.HOME ?? '';
  for (const file of entry.signIn.files) if (home !== '' && existsSync(join(home, file))) return `~/${file}`;
  return undefined;
}
