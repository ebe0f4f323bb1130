/**
 * What names a shared store and a machine, checked without loading the PostgreSQL driver: the
 * user config, the CLI and the cluster layer (src/cluster) all check them here, so a bad value
 * fails before anything dials and a single-machine supervisor never loads `pg`.
 */
import { InvalidInputError } from './errors.js';

/**
 * How `baton daemon start --store/--machine` hands its flags to the supervisor it starts: in its
 * environment, under names of their own so that errors name the flag and the flag wins.
 */
export const FLAG_ENV = { store: 'BATON_STORE_FLAG', machine: 'BATON_MACHINE_FLAG' } as const;

export interface StoreTarget {
  url: string;
  /** host:port/database, for messages. */
  target: string;
}

/** A store URL that is not a PostgreSQL URL: names the key it came from and what is wrong. */
export class StoreUrlError extends InvalidInputError {
  /** The URL given, its password removed: an error may be logged or serialised whole. */
  readonly value: string;

  constructor(
    readonly key: string,
    value: string,
    problem: string,
  ) {
    super(
      `${key} is not a PostgreSQL URL (${problem}): expected postgres://user[:password]@host[:port]/database, or postgres:///database?host=/socket/folder&user=user for a Unix socket.`,
      { key, value: redact(value) },
    );
    this.value = redact(value);
  }
}

/** A worker name that cannot name a machine (it becomes part of a queue name). */
export class WorkerNameError extends InvalidInputError {
  constructor(
    readonly key: string,
    readonly value: unknown,
  ) {
    super(
      `${key} must be a machine name of 1–63 letters, digits, dots, hyphens or underscores; got ${JSON.stringify(value)}.`,
      { key, value },
    );
  }
}

/** Checks a store URL; `key` names where it came from (`--store`, BATON_STORE, config.json's "store"). */
export function parseStoreUrl(value: unknown, key = 'store'): StoreTarget {
  if (typeof value !== 'string' || value.trim() === '')
    throw new StoreUrlError(key, String(value), 'it is empty');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StoreUrlError(key, value, 'it does not parse as a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new StoreUrlError(key, value, `the scheme is ${url.protocol.replace(/:$/, '')}, not postgres`);
  // As node-postgres reads it: `host` and `port` parameters win over the URL's own; a host that
  // is a folder (`?host=/run/postgresql`, or a percent-encoded `%2Frun%2Fpostgresql`) is a Unix socket.
  const host = url.searchParams.get('host') || decoded(url.hostname, key, value);
  if (host === '') throw new StoreUrlError(key, value, 'it names no host');
  const port = url.searchParams.get('port') || url.port || '5432';
  const database = decoded(url.pathname.replace(/^\//, ''), key, value);
  if (database === '' || database.includes('/')) throw new StoreUrlError(key, value, 'it names no database');
  return { url: value, target: `${host}:${port}/${database}` };
}

function decoded(part: string, key: string, value: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new StoreUrlError(key, value, `${part} is not valid percent-encoding`);
  }
}

/**
 * A URL with its password (in the user part, up to the authority's last `@`, or any query
 * parameter whose key says pass — libpq's `password`, `sslpassword`, …) replaced, for messages
 * and logs. The rest is left exactly as written, so a socket folder still reads as given.
 */
export function redact(url: string): string {
  // Up to the string's last `@`: a password someone left unencoded may hold `/`, `?`, `#` or `@`
  // (such a URL does not parse, and its error still must not show the password).
  const withUser = /^([a-z][a-z0-9+.-]*:\/\/)([^:@]*):(.*)@/is.exec(url);
  const base = withUser === null ? url : `${withUser[1]}${withUser[2]}:***@${url.slice(withUser[0].length)}`;
  return base.replace(/([?&][^=&#]*pass[^=&#]*=)[^&#]*/gi, '$1***');
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** `any` targets every machine (the shared queue), so no machine may be called that. */
const RESERVED = new Set(['any']);

/** Checks a machine name: it becomes part of a queue name, so it is kept plain. */
export function checkWorkerName(value: unknown, key = 'name'): string {
  if (typeof value !== 'string' || !NAME.test(value) || RESERVED.has(value.toLowerCase()))
    throw new WorkerNameError(key, value);
  return value;
}

/**
 * A host name made into a valid machine name: lower-cased, every other character a hyphen, at
 * most 63 long, starting with a letter or digit; `machine` when nothing (or only `any`) is left.
 */
export function machineNameFrom(host: string): string {
  const name = host
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 63);
  return name === '' || RESERVED.has(name) ? 'machine' : name;
}
