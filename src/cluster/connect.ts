/**
 * Connecting to the shared PostgreSQL store: the URL checked before anything dials, and a failed
 * first connection turned into one clear error naming the server (never the password).
 */
import pg from 'pg';
import { StoreUnreachableError, StoreUrlError } from './errors.js';

export interface StoreTarget {
  url: string;
  /** host:port/database, for messages. */
  target: string;
}

/** Checks a store URL; `key` names where it came from (`--store`, BATON_STORE, config.json's "store"). */
export function parseStoreUrl(value: unknown, key = 'store'): StoreTarget {
  if (typeof value !== 'string' || value.trim() === '') throw new StoreUrlError(key, String(value), 'it is empty');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StoreUrlError(key, value, 'it does not parse as a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new StoreUrlError(key, value, `the scheme is ${url.protocol.replace(/:$/, '')}, not postgres`);
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

export interface PoolOptions {
  /** Connections kept open; default 4. */
  max?: number;
  /** Shown in pg_stat_activity, so an operator can tell Baton's connections apart. */
  applicationName?: string;
  connectTimeoutMs?: number;
}

/** A pool on the store, checked with one round trip so a wrong URL fails here, not later. */
export async function openPool(value: unknown, options: PoolOptions = {}, key = 'store'): Promise<pg.Pool> {
  const { url, target } = parseStoreUrl(value, key);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 4,
    application_name: options.applicationName ?? 'baton',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
  });
  // An idle connection the server drops must not take the process down; the next query reconnects.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw unreachable(target, error);
  }
  return pool;
}

/** One connection of its own (LISTEN needs one that stays put). */
export async function openClient(value: unknown, applicationName: string, key = 'store'): Promise<pg.Client> {
  const { url, target } = parseStoreUrl(value, key);
  const client = new pg.Client({ connectionString: url, application_name: applicationName, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw unreachable(target, error);
  }
  return client;
}

export function unreachable(target: string, error: unknown): StoreUnreachableError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreUnreachableError(target, typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message);
}
