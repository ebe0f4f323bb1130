/**
 * The Agent Client Protocol adapter: one adapter for every ACP agent (Gemini CLI, opencode, Qwen
 * Code, Copilot CLI, the user's own entries), on the official SDK over the agent's stdio. An
 * agent is an entry of the registry (./registry.ts); the adapter is the same for all.
 */
import { InvalidInputError } from '../../shared/errors.js';
import type { AgentAdapter } from '../types.js';
import { builtinAcpAgent, findAcpAgent, type AcpAgentEntry, type BuiltinAcpName } from './registry.js';
import { AcpRun } from './run.js';

export { AcpRun } from './run.js';
export {
  acpAgents,
  acpSignedIn,
  BUILTIN_ACP_AGENTS,
  BUILTIN_ACP_NAMES,
  findAcpAgent,
  type AcpAgentEntry,
} from './registry.js';

/** The one option an ACP agent takes: the path of its executable (`geminiPath`, …), as claude's `claudePath`. */
export function pathOption(entry: AcpAgentEntry): string {
  return `${entry.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Path`;
}

export function acpAdapter(entry: AcpAgentEntry): AgentAdapter {
  const option = pathOption(entry);
  return {
    id: entry.name,
    validateOptions(options, cwd) {
      const unknown = Object.keys(options).filter((k) => k !== option);
      if (unknown.length > 0)
        throw new InvalidInputError(
          `Unknown option(s) for the ${entry.name} agent: ${unknown.join(', ')}. Known: ${option}.`,
        );
      findAcpAgent(entry, process.env, cwd, options[option]);
      return options[option] === undefined ? {} : { [option]: options[option] };
    },
    async start(options, emit) {
      const executable = findAcpAgent(
        entry,
        { ...process.env, ...options.env },
        options.cwd,
        options.options[option],
      );
      const run = new AcpRun(options, emit, entry, executable);
      run.start();
      return run;
    },
  };
}

export function builtinAcpAdapter(name: BuiltinAcpName): AgentAdapter {
  return acpAdapter(builtinAcpAgent(name));
}
