/**
 * A client of the running supervisor that presents a session's own credential (Baton's MCP server
 * inside a session, `baton mcp`). It never starts a supervisor, and a refusal says the
 * supervisor's reason (an ended session's revoked credential, a call a session may not make).
 */
import type { ErrorMapper } from '../api/client.js';
import { readDoorAddress } from '../mcp/serve.js';
import { SupervisorUnreachableError, UnauthorizedError } from '../shared/errors.js';
import { homePaths } from '../shared/paths.js';
import { isProcessAlive } from '../shared/process.js';
import { readSupervisorFile, SupervisorClient, toBatonError } from './client.js';

/**
 * Finds the supervisor through the session's door (`credentialFile`'s folder), which is all of
 * Baton's state folder a sandboxed agent sees; a door without an address (a host started by an
 * older Baton) falls back to `supervisor.json` in `home`.
 */
export function connectAsSession(
  home: string,
  cwd: string,
  credential: string,
  credentialFile: string,
): Promise<SupervisorClient> {
  const address = readDoorAddress(credentialFile);
  if (address !== undefined)
    return Promise.resolve(new SupervisorClient(address, credential, cwd, toSessionError));
  const info = readSupervisorFile(homePaths(home));
  if (info === undefined || !isProcessAlive(info.pid))
    return Promise.reject(
      new SupervisorUnreachableError(
        "Baton's supervisor is not running; it is started again by any `baton` command.",
      ),
    );
  return Promise.resolve(
    new SupervisorClient(`http://127.0.0.1:${info.port}`, credential, cwd, toSessionError),
  );
}

const toSessionError: ErrorMapper = (status, body) =>
  status === 401 && body !== undefined
    ? new UnauthorizedError(body.error.message)
    : toBatonError(status, body);
