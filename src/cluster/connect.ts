/**
 * Connecting to the shared PostgreSQL store: the URL checked before anything dials, and a failed
 * first connection turned into one clear error naming the server (never the password).
 */
import pg from 'pg';
import { parseStoreUrl } from '../shared/cluster-settings.js';
import { StoreUnreachableError } from './errors.js';

export { parseStoreUrl, type StoreTarget } from '../shared/cluster-settings.js';

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
  const client = new pg.Client({
    connectionString: url,
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
  });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw unreachable(target, error);
  }
  return client;
}

export function unreachable(target: string, error: unknown, source?: string): StoreUnreachableError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreUnreachableError(
    target,
    typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message,
    source,
  );
}

/**
 * Whether a failed query failed for want of the server (refused, timed out, cut off, shut down)
 * rather than for the query: the server's own errors carry a severity, and only its connection
 * (08) and operator-intervention (57P) classes mean it went away.
 */
export function isConnectionLoss(error: unknown): boolean {
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown };
  if (typeof severity !== 'string') return true;
  return typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P'));
}
