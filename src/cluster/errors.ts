/** The cluster layer's named errors; codes map to HTTP statuses and exit codes in src/shared/errors.ts. */
import { BatonError, InvalidInputError, type ErrorCode } from '../shared/errors.js';

/** A store URL that is not a PostgreSQL URL: names the key it came from and what is wrong. */
export class StoreUrlError extends InvalidInputError {
  constructor(readonly key: string, readonly value: string, problem: string) {
    super(`${key} is not a PostgreSQL URL (${problem}): expected postgres://user[:password]@host[:port]/database, or postgres:///database?host=/socket/folder&user=user for a Unix socket.`, { key, value: redact(value) });
  }
}

/** The database could not be reached or refused us; nothing was written. */
export class StoreUnreachableError extends BatonError {
  constructor(readonly target: string, reason: string) {
    super('store_unreachable', `Cannot reach the PostgreSQL store at ${target} (${reason}). Check that the server is running and the URL, user and password are right.`, { target, reason });
  }
}

/** A worker name that cannot name a machine (it becomes part of a queue name). */
export class WorkerNameError extends InvalidInputError {
  constructor(readonly key: string, readonly value: unknown) {
    super(`${key} must be a machine name of 1–63 letters, digits, dots, hyphens or underscores; got ${JSON.stringify(value)}.`, { key, value });
  }
}

/** The worker is gone, or registered again since (a newer incarnation): it holds no session. */
export class WorkerNotRegisteredError extends BatonError {
  constructor(readonly worker: string, readonly incarnation?: number) {
    super(
      'not_found',
      incarnation === undefined
        ? `No worker named "${worker}" is registered; register it again.`
        : `No worker named "${worker}" is registered as incarnation ${incarnation} (it was deregistered or registered again since): stop its sessions and register it again.`,
      { worker, incarnation },
    );
  }
}

/**
 * A URL with its password (in the user part, up to the authority's last `@`, or any query
 * parameter whose key says pass — libpq's `password`, `sslpassword`, …) replaced, for messages
 * and logs. The rest is left exactly as written, so a socket folder still reads as given.
 */
export function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^/?#]*@/i, '$1:***@').replace(/([?&][^=&#]*pass[^=&#]*=)[^&#]*/gi, '$1***');
}

/** A command for another machine was not answered in time. */
export class RemoteCommandTimeoutError extends BatonError {
  constructor(readonly machine: string, readonly ms: number, readonly taken: boolean) {
    super(
      'host_unresponsive',
      taken
        ? `The machine "${machine}" took the command but did not answer within ${ms} ms; it may still take effect. Check the session again before repeating it.`
        : `The machine "${machine}" did not take the command within ${ms} ms, so it was withdrawn and will not run: the machine may be down (\`baton workers\` shows its last heartbeat).`,
      { machine, ms, taken },
    );
  }
}

/** The owning machine ran a command and its handler refused or failed: its message, and its code when it had one. */
export class RemoteCommandFailedError extends BatonError {
  constructor(readonly machine: string, code: ErrorCode, message: string) {
    super(code, message, { machine });
  }
}
