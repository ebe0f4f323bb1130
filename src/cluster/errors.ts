/** The cluster layer's named errors; codes map to HTTP statuses and exit codes in src/shared/errors.ts. */
import { BatonError, InvalidInputError } from '../shared/errors.js';

/** A store URL that is not a PostgreSQL URL: names the key it came from and what is wrong. */
export class StoreUrlError extends InvalidInputError {
  constructor(readonly key: string, readonly value: string, problem: string) {
    super(`${key} is not a PostgreSQL URL (${problem}): expected postgres://user[:password]@host[:port]/database.`, { key, value: redact(value) });
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

/** Query parameters that carry a secret (libpq's `password`, `sslpassword`, …). */
const SECRET_KEY = /pass/i;

/** A URL with its password (in the user part or the query) replaced, for messages and logs. */
export function redact(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: hide everything between the scheme and the last `@`, and every secret-looking value.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/).*@/i, '$1***@').replace(/([?&][^=&]*pass[^=&]*=)[^&]*/gi, '$1***');
  }
  if (parsed.password !== '') parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()]) if (SECRET_KEY.test(key)) parsed.searchParams.set(key, '***');
  return parsed.toString().replace(/%2A%2A%2A/g, '***');
}
