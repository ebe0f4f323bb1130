/** Finding `codex`: explicit option, then $BATON_CODEX_PATH, then PATH. */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { findExecutable, isExecutable } from '../locate.js';

export function findCodex(explicit: unknown, env: NodeJS.ProcessEnv, cwd: string): string {
  return findExecutable(
    {
      agent: 'codex',
      command: 'codex',
      option: 'codexPath',
      envVar: 'BATON_CODEX_PATH',
      product: 'Codex',
      install: 'Install Codex (`npm install -g @openai/codex`, then run `codex` once to sign in)',
    },
    explicit,
    env,
    cwd,
  );
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
