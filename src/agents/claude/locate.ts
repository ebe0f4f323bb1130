/** Finding the `claude` executable: explicit option, then $BATON_CLAUDE_PATH, then PATH, then the SDK's own. */
import { accessSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { AgentUnavailableError, InvalidInputError } from '../../shared/errors.js';

const INSTALL_HINT =
  'Install Claude Code (`npm install -g @anthropic-ai/claude-code`, then run `claude` once to sign in), ' +
  'or point Baton at it with $BATON_CLAUDE_PATH=/path/to/claude in the environment of the supervisor (`baton daemon stop` first).';

export function findClaude(explicit: unknown, env: NodeJS.ProcessEnv, cwd: string): string {
  if (explicit !== undefined) {
    if (typeof explicit !== 'string' || explicit === '') throw new InvalidInputError('claudePath must be a path to the claude executable.');
    const path = isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
    if (!isExecutable(path)) throw new AgentUnavailableError('claude', `claudePath ${path} is not an executable file. ${INSTALL_HINT}`);
    return path;
  }
  const fromEnv = env.BATON_CLAUDE_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isExecutable(fromEnv)) throw new AgentUnavailableError('claude', `$BATON_CLAUDE_PATH (${fromEnv}) is not an executable file. ${INSTALL_HINT}`);
    return fromEnv;
  }
  const found = findOnPath('claude', env.PATH) ?? bundledClaude();
  if (found === undefined) throw new AgentUnavailableError('claude', `Claude Code was not found on PATH. ${INSTALL_HINT}`);
  return found;
}

export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The binary the Agent SDK ships in its platform package. It is the exact version the SDK was
 * built against, so it is a sound fallback for people who have not installed Claude Code
 * themselves (they still need a key or a login for it to be useful).
 */
function bundledClaude(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve(`@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`);
    const binary = join(dirname(pkg), process.platform === 'win32' ? 'claude.exe' : 'claude');
    return isExecutable(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
