/** Finding `codex`: explicit option, then $BATON_CODEX_PATH, then PATH. */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { AgentUnavailableError, InvalidInputError } from '../../shared/errors.js';

const INSTALL_HINT =
  'Install Codex (`npm install -g @openai/codex`, then run `codex` once to sign in), ' +
  'or point Baton at it with $BATON_CODEX_PATH=/path/to/codex in the environment of the supervisor (`baton daemon stop` first).';

export function findCodex(explicit: unknown, env: NodeJS.ProcessEnv, cwd: string): string {
  if (explicit !== undefined) {
    if (typeof explicit !== 'string' || explicit === '') throw new InvalidInputError('codexPath must be a path to the codex executable.');
    const path = isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
    if (!isExecutable(path)) throw new AgentUnavailableError('codex', `codexPath ${path} is not an executable file. ${INSTALL_HINT}`);
    return path;
  }
  const fromEnv = env.BATON_CODEX_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isExecutable(fromEnv)) throw new AgentUnavailableError('codex', `$BATON_CODEX_PATH (${fromEnv}) is not an executable file. ${INSTALL_HINT}`);
    return fromEnv;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'codex');
    if (dir !== '' && isExecutable(candidate)) return candidate;
  }
  throw new AgentUnavailableError('codex', `Codex was not found on PATH. ${INSTALL_HINT}`);
}

const TARGETS: Record<string, { pkg: string; triple: string }> = {
  'linux-x64': { pkg: '@openai/codex-linux-x64', triple: 'x86_64-unknown-linux-musl' },
  'linux-arm64': { pkg: '@openai/codex-linux-arm64', triple: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { pkg: '@openai/codex-darwin-x64', triple: 'x86_64-apple-darwin' },
  'darwin-arm64': { pkg: '@openai/codex-darwin-arm64', triple: 'aarch64-apple-darwin' },
};

/**
 * The npm package installs `codex` as a Node launcher that, on Node 20, keeps a Node process
 * running beside the native binary for the whole session. Running the native binary the launcher
 * would pick saves that process (memory and start-up time); anything else runs as given.
 */
export function nativeCodex(path: string): string {
  try {
    const real = realpathSync(path);
    if (!real.endsWith(`${sep}@openai${sep}codex${sep}bin${sep}codex.js`)) return path;
    const target = TARGETS[`${process.platform}-${process.arch}`];
    if (target === undefined) return path;
    const pkg = createRequire(real).resolve(`${target.pkg}/package.json`);
    const binary = join(dirname(pkg), 'vendor', target.triple, 'bin', 'codex');
    return isExecutable(binary) ? binary : path;
  } catch {
    return path;
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
