/** The supervisor's side of a host's control socket. */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { BatonError, HostUnresponsiveError, type ErrorCode } from '../shared/errors.js';
import { sessionPaths } from '../shared/paths.js';
import { checkSocketFolder } from '../shared/private-folder.js';
import { claimant } from './host-claim.js';
import type { HostInfo, HostRequest, HostResponse } from './spec.js';

export type HostCommand = HostRequest extends infer R
  ? R extends { id: number }
    ? Omit<R, 'id'>
    : never
  : never;

let nextId = 1;

/**
 * Where a session's host listens: the path it recorded at start (hosts outlive supervisors, which
 * may have been started with another $XDG_RUNTIME_DIR), else where it would be now.
 */
export function hostSocket(home: string, sessionId: string): string {
  const paths = sessionPaths(home, sessionId);
  try {
    const info = JSON.parse(readFileSync(paths.hostJson, 'utf8')) as Partial<HostInfo>;
    if (typeof info.socket === 'string' && info.socket !== '') return info.socket;
  } catch {
    // No host.json (no host yet, or one that has gone): the computed path.
  }
  return paths.socket;
}

/**
 * The pid of the session's live host, by its claim (host-claim.ts), whether or not a supervisor
 * recorded it: one started for the session by a supervisor killed before it could say so.
 */
export function runningHostOf(home: string, sessionId: string): number | undefined {
  const pid = claimant(sessionPaths(home, sessionId).dir);
  return pid !== undefined && isHostAlive(pid, sessionId) ? pid : undefined;
}

/**
 * Sends one request to a session's host and waits for its answer; rejects when the host is gone,
 * and before connecting when the socket's folder is not the user's alone (UnsafeSocketFolderError).
 */
export async function sendToSessionHost(home: string, sessionId: string, body: HostCommand): Promise<void> {
  const socket = hostSocket(home, sessionId);
  checkSocketFolder(home, socket);
  await sendToHost(socket, body);
}

/** Sends one request and waits for its answer; rejects when the host is gone. */
export async function sendToHost(socketPath: string, body: HostCommand, timeoutMs = 30_000): Promise<void> {
  await request(socketPath, body, timeoutMs, false);
}

/**
 * Asks a session's host to hold its replies (decision 456) on a connection kept open until
 * `letGo`: the host lets the hold go when that connection closes, so an asker that gave up
 * waiting for the answer, or died, or whose `resume` never arrived leaves nothing held (decision 461).
 */
export async function holdSessionHost(home: string, sessionId: string): Promise<{ letGo(): void }> {
  const socket = hostSocket(home, sessionId);
  checkSocketFolder(home, socket);
  return holdHost(socket);
}

/** `holdSessionHost` on the socket at `socketPath`. */
export async function holdHost(socketPath: string, timeoutMs = 30_000): Promise<{ letGo(): void }> {
  const open = await request(socketPath, { op: 'hold' }, timeoutMs, true);
  return { letGo: () => open?.destroy() };
}

/** One request and its answer; with `keepOpen`, the connection is left open and handed back. */
function request(
  socketPath: string,
  body: HostCommand,
  timeoutMs: number,
  keepOpen: boolean,
): Promise<Socket | undefined> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const socket = connect(socketPath);
    let buffer = '';
    let answered = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new HostUnresponsiveError(timeoutMs));
    }, timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      reject(
        new BatonError(
          'conflict',
          `The session host is not reachable (${error.message}); the session is not running.`,
        ),
      );
    };
    socket.on('error', fail);
    socket.on('connect', () => socket.write(JSON.stringify({ ...body, id }) + '\n'));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (answered) return;
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl === -1) return;
      answered = true;
      clearTimeout(timer);
      const response = JSON.parse(buffer.slice(0, nl)) as HostResponse;
      if (!response.ok || !keepOpen) socket.end();
      if (response.ok) resolve(keepOpen ? socket : undefined);
      else
        reject(
          new BatonError(
            (response.error?.code as ErrorCode | undefined) ?? 'internal',
            response.error?.message ?? 'the session host refused',
          ),
        );
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (!answered) fail(new Error('connection closed'));
    });
  });
}

/**
 * Whether `pid` is a live session host for `sessionId`. The command line is checked too, so a
 * recycled pid is not mistaken for the host.
 */
export function isHostAlive(pid: number | null | undefined, sessionId: string): boolean {
  if (pid === null || pid === undefined || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes(sessionId)) return true;
    // A zombie (exited, not yet reaped) has an empty command line.
    return false;
  } catch {
    return true;
  }
}
