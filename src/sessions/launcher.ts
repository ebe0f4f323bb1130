/** Spawns session host processes, detached so they outlive the supervisor. */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../shared/errors.js';
import { sessionPaths } from '../shared/paths.js';
import type { HostSpec } from './spec.js';

/**
 * The compiled host entry. Under the test runner this module is TypeScript source, so we point
 * at the build output instead (npm test builds first).
 */
export function hostEntry(): string {
  const here = fileURLToPath(new URL('./host-main.js', import.meta.url));
  if (existsSync(here)) return here;
  const built = here.replace(/\/src\/sessions\/host-main\.js$/, '/dist/sessions/host-main.js');
  if (existsSync(built)) return built;
  throw new InternalError(`Session host entry not found at ${here}; run \`npm run build\``);
}

export interface LaunchedHost {
  pid: number;
  /** Settles when the host process exits (only while this supervisor is its parent). */
  exited: Promise<number | null>;
}

/** Starts a host and resolves once it reports ready (its socket listens and the agent started). */
export function launchHost(spec: HostSpec, env: NodeJS.ProcessEnv): Promise<LaunchedHost> {
  const paths = sessionPaths(spec.home, spec.sessionId);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.spec, JSON.stringify(spec));
  const logFd = openSync(paths.hostLog, 'a');
  const child = spawn(process.execPath, [hostEntry(), spec.home, spec.sessionId], {
    cwd: spec.cwd,
    env,
    detached: true,
    stdio: ['ignore', logFd, logFd, 'ipc'],
  });
  closeSync(logFd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => {
      reject(new InternalError(`The session host exited during start (code ${code}); see ${paths.hostLog}`));
    };
    child.once('exit', onExit);
    child.once('error', reject);
    child.once('message', () => {
      child.off('exit', onExit);
      // Let go: the host must not depend on us staying alive.
      child.disconnect();
      child.unref();
      resolve({ pid: child.pid ?? -1, exited });
    });
  });
}
