/** User-level configuration in `$BATON_HOME/config.json`, validated at the boundary. */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { InvalidInputError, formatIssues } from './errors.js';

export const UserConfig = z
  .object({
    /** Sessions mid-turn at once; more dispatches queue. */
    maxConcurrent: z.number().int().min(1).max(1000).optional(),
  })
  .strict();
export type UserConfig = z.infer<typeof UserConfig>;

export interface ResolvedConfig {
  maxConcurrent: number;
  /** `BATON_PORT`: the one port to listen on. Unset, the supervisor reuses its last port or takes a free one. */
  port: number | undefined;
}

/**
 * Agents spend most of their time waiting on a model, so two per core is a fair default; four is
 * the floor so a small machine still runs a handful in parallel.
 */
export function defaultMaxConcurrent(): number {
  return Math.max(4, availableParallelism() * 2);
}

export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  let fileConfig: UserConfig = {};
  if (existsSync(path)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new InvalidInputError(`${path} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = UserConfig.safeParse(raw);
    if (!parsed.success) throw new InvalidInputError(`${path}: ${formatIssues(parsed.error.issues)}`);
    fileConfig = parsed.data;
  }
  const fromEnv = env.BATON_MAX_CONCURRENT;
  let maxConcurrent = fileConfig.maxConcurrent ?? defaultMaxConcurrent();
  if (fromEnv !== undefined && fromEnv !== '') {
    const n = Number(fromEnv);
    if (!Number.isInteger(n) || n < 1) throw new InvalidInputError(`BATON_MAX_CONCURRENT must be a positive integer, got "${fromEnv}"`);
    maxConcurrent = n;
  }
  const portFromEnv = env.BATON_PORT;
  let port: number | undefined;
  if (portFromEnv !== undefined && portFromEnv !== '') {
    port = parsePort(portFromEnv);
    if (port === undefined) throw new InvalidInputError(`BATON_PORT must be a port number from 1 to 65535, got "${portFromEnv}"`);
  }
  return { maxConcurrent, port };
}

/** A TCP port number written as text, or undefined for anything else. */
export function parsePort(text: string): number | undefined {
  const port = Number(text.trim());
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : undefined;
}
