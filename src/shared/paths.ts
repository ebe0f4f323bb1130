/** Where Baton keeps its state. Every path derives from BATON_HOME so tests never touch a real home. */
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function batonHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BATON_HOME) return resolve(env.BATON_HOME);
  const stateHome = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(stateHome, 'baton');
}

export interface HomePaths {
  home: string;
  db: string;
  supervisorJson: string;
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
    supervisorLock: join(home, 'supervisor.lock'),
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
}

export function sessionPaths(home: string, sessionId: string): SessionPaths {
  const dir = join(home, 'sessions', sessionId);
  return {
    dir,
    events: join(dir, 'events.jsonl'),
    hostJson: join(dir, 'host.json'),
    hostLog: join(dir, 'host.log'),
    spec: join(dir, 'spec.json'),
    socket: socketPath(home, sessionId),
    agentState: join(dir, 'agent'),
  };
}

/**
 * Unix socket paths are limited to ~107 bytes. A deep BATON_HOME would overflow that, so long
 * homes get their sockets in a per-home folder under the temp dir instead.
 */
function socketPath(home: string, sessionId: string): string {
  const preferred = join(home, 'sessions', sessionId, 'host.sock');
  if (Buffer.byteLength(preferred) < 100) return preferred;
  // Loaded here, not at the top: node:crypto costs every CLI command ~4 ms and 2 MB, and only long homes need it.
  const { createHash } = process.getBuiltinModule('node:crypto');
  const digest = createHash('sha256').update(home).digest('hex').slice(0, 12);
  return join(tmpdir(), `baton-${digest}`, `${sessionId}.sock`);
}
