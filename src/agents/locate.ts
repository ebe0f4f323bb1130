/**
 * Finding an agent's executable, the same way for every agent: an explicit option, then the
 * agent's environment variable, then PATH, then an optional fallback (e.g. a bundled binary).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { AgentUnavailableError, InvalidInputError } from '../shared/errors.js';

export interface ExecutableSpec {
  agent: string;
  /** The command name looked up on PATH. */
  command: string;
  /** The dispatch option that may name the path, e.g. `claudePath`. */
  option: string;
  /** The environment variable that may name the path, e.g. `BATON_CLAUDE_PATH`. */
  envVar: string;
  /** Human name and how to install it, for the error message. */
  product: string;
  install: string;
  fallback?: () => string | undefined;
}

export function findExecutable(
  spec: ExecutableSpec,
  explicit: unknown,
  env: NodeJS.ProcessEnv,
  cwd: string,
): string {
  const hint = `${spec.install}, or point Baton at it with $${spec.envVar}=/path/to/${spec.command} in the environment of the supervisor (\`baton daemon stop\` first).`;
  if (explicit !== undefined) {
    if (typeof explicit !== 'string' || explicit === '')
      throw new InvalidInputError(`${spec.option} must be a path to the ${spec.command} executable.`);
    const path = isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
    if (!isExecutable(path))
      throw new AgentUnavailableError(
        spec.agent,
        `${spec.option} ${path} is not an executable file. ${hint}`,
      );
    return path;
  }
  const fromEnv = env[spec.envVar];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isExecutable(fromEnv))
      throw new AgentUnavailableError(
        spec.agent,
        `$${spec.envVar} (${fromEnv}) is not an executable file. ${hint}`,
      );
    return fromEnv;
  }
  const found = findOnPath(spec.command, env.PATH) ?? spec.fallback?.();
  if (found === undefined)
    throw new AgentUnavailableError(spec.agent, `${spec.product} was not found on PATH. ${hint}`);
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

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
