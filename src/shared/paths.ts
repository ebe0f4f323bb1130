/** Where Baton keeps its state. Every path derives from BATON_HOME so tests never touch a real home. */
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export function batonHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BATON_HOME) return resolve(env.BATON_HOME);
  const stateHome = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(stateHome, 'baton');
}

export interface HomePaths {
  home: string;
  db: string;
  supervisorJson: string;
  /** The single-instance lock: a Unix socket the running supervisor listens on (decision 28). */
  supervisorLock: string;
  token: string;
  /** Digests and expiries of browser logins, so they outlive a supervisor restart. */
  browserLogins: string;
  /** The port the last supervisor listened on, which the next one tries first. */
  lastPort: string;
  log: string;
  config: string;
  sessions: string;
  worktrees: string;
}

export function homePaths(home: string): HomePaths {
  return {
    home,
    db: join(home, 'baton.db'),
    supervisorJson: join(home, 'supervisor.json'),
    supervisorLock: join(home, 'supervisor.sock'),
    token: join(home, 'token'),
    browserLogins: join(home, 'browser-logins.json'),
    lastPort: join(home, 'last-port'),
    log: join(home, 'supervisor.log'),
    config: join(home, 'config.json'),
    sessions: join(home, 'sessions'),
    worktrees: join(home, 'worktrees'),
  };
}

export interface SessionPaths {
  dir: string;
  events: string;
  hostJson: string;
  hostLog: string;
  spec: string;
  socket: string;
  agentState: string;
  instructions: string;
}

export function sessionPaths(
  home: string,
  sessionId: string,
  env: NodeJS.ProcessEnv = process.env,
): SessionPaths {
  const dir = join(home, 'sessions', sessionId);
  return {
    dir,
    events: join(dir, 'events.jsonl'),
    hostJson: join(dir, 'host.json'),
    hostLog: join(dir, 'host.log'),
    spec: join(dir, 'spec.json'),
    socket: socketPath(home, sessionId, env),
    agentState: join(dir, 'agent'),
    /** Instructions given at dispatch (a task's context, a routine's brief, a handoff pack), added to Baton's own. */
    instructions: join(dir, 'instructions.md'),
  };
}

/** Unix socket addresses are limited to 108 bytes; a little is kept spare. */
const MAX_SOCKET_PATH = 100;

/**
 * A host's control socket sits in its session folder when that path fits in a socket address.
 * A deep BATON_HOME would overflow it, so long homes get their sockets in a private runtime
 * folder instead (see `runtimeFolder`; src/shared/private-folder.ts checks it before use).
 */
function socketPath(home: string, sessionId: string, env: NodeJS.ProcessEnv): string {
  const preferred = join(home, 'sessions', sessionId, 'host.sock');
  if (Buffer.byteLength(preferred) < MAX_SOCKET_PATH) return preferred;
  return join(runtimeFolder(home, env), `${sessionId}.sock`);
}

/**
 * The per-user, per-home folder for sockets that do not fit in BATON_HOME: under
 * $XDG_RUNTIME_DIR (the user's own, 0700) when set, else under the temp dir, where its
 * predictable name means another user may have made it first; hence the checks before use.
 */
export function runtimeFolder(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const runtimeDir = env.XDG_RUNTIME_DIR;
  const base = runtimeDir !== undefined && isAbsolute(runtimeDir) ? runtimeDir : tmpdir();
  // Loaded here, not at the top: node:crypto costs every CLI command ~4 ms and 2 MB, and only long homes need it.
  const { createHash } = process.getBuiltinModule('node:crypto');
  const digest = createHash('sha256').update(home).digest('hex').slice(0, 12);
  return join(base, `baton-${process.getuid?.() ?? 0}-${digest}`);
}
