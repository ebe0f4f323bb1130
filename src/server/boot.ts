/**
 * The first part of a supervisor's start: the lock, the token and the listener with its startup
 * gate, on as little code as that takes. The rest of the supervisor (zod and every endpoint's
 * schema, the domains, SQLite) is loaded after it listens: loading it was most of the time from
 * the process's start to listening (decision 346, "A supervisor listens before it loads its
 * domains"). The health check answers meanwhile; other requests wait at the gate as they did for
 * the catch-up (decision 169).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerType } from '@hono/node-server';
import { errorMessage, InvalidInputError, SUPERVISOR_EXIT_ALREADY_RUNNING } from '../shared/errors.js';
import { newToken } from '../shared/ids.js';
import { createLogger, setLogFile } from '../shared/log.js';
import { batonHome, homePaths, type HomePaths } from '../shared/paths.js';
import { parsePort } from '../shared/port.js';
import { acquireLock, type Lock } from './lock.js';
import { holdAt, listenWhereWeCan, StartupGate } from './startup.js';

/** What the start has by the time it listens, handed to the rest of it. */
export interface Booted {
  env: NodeJS.ProcessEnv;
  home: string;
  paths: HomePaths;
  lock: Lock;
  token: string;
  gate: StartupGate;
  server: ServerType;
  port: number;
  startedAt: Date;
  /** `performance.now()` when the start began: the uptime's origin, by the monotonic clock. */
  startedMs: number;
}

export async function bootSupervisor(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const home = batonHome(env);
  const paths = homePaths(home);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // Paths relative to the home stay short enough for a socket address however deep it is.
  process.chdir(home);
  setLogFile(paths.log);
  const log = createLogger('supervisor');
  const lock = await acquireLock(paths.supervisorLock);
  if (lock === undefined) {
    log.info('another supervisor holds the lock; exiting');
    process.exit(SUPERVISOR_EXIT_ALREADY_RUNNING);
  }
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception', { error: error.stack ?? error.message });
  });
  process.on('unhandledRejection', (error) => {
    log.error('unhandled rejection', { error: errorMessage(error) });
  });
  const token = ensureToken(paths.token);
  // BATON_PORT alone decides the port; the rest of the config is read (and a bad one refused,
  // before the starting command is told anything) once the domains are loaded.
  const pinned = pinnedPort(env);
  const startedAt = new Date();
  // Uptime by the monotonic clock: a wall clock set back would make it negative.
  const startedMs = performance.now();
  // Listen first, catch up after (decision 169): the health check answers at once, the rest waits at the gate.
  const gate = new StartupGate(token);
  await holdAt('listen', env);
  const { server, port } = await listenWhereWeCan(gate.fetch, pinned, paths.lastPort);
  writeFileSync(paths.lastPort, `${port}\n`);
  log.info('listening', {
    port,
    pid: process.pid,
    // Since the process started (Node's own start and the loading of this first part included).
    sinceStart: Math.round(performance.now()),
  });
  const { runSupervisor } = await import('./supervisor.js');
  await runSupervisor({ env, home, paths, lock, token, gate, server, port, startedAt, startedMs });
}

/** `BATON_PORT`, checked as the config checks it (`loadConfig` says the same of a bad one). */
function pinnedPort(env: NodeJS.ProcessEnv): number | undefined {
  const given = env.BATON_PORT;
  if (given === undefined || given === '') return undefined;
  const port = parsePort(given);
  if (port === undefined)
    throw new InvalidInputError(`BATON_PORT must be a port number from 1 to 65535, got "${given}"`);
  return port;
}

function ensureToken(path: string): string {
  if (existsSync(path)) {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length >= 16) return token;
  }
  const token = newToken();
  writeFileSync(path, token + '\n', { mode: 0o600 });
  return token;
}
