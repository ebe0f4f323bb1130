/** Types for postgres.mjs (plain JavaScript so that it runs before anything is built). */
export interface FoundPostgres {
  /** The folder holding all three binaries. */
  bin: string;
  initdb: string;
  pgCtl: string;
  postgres: string;
  /** Where it was found: "BATON_PG_BIN", "PATH" or "<debian root>/<version>". */
  source: string;
}

export type EnsureResult = ({ ok: true; installed?: true } & FoundPostgres) | { ok: false; message: string };

export const BIN_VAR: string;
export const BINARIES: readonly string[];
export const DEBIAN_ROOT: string;
export const SKIP_INSTALL_VAR: string;

export function findPostgres(env?: NodeJS.ProcessEnv, debianRoot?: string): FoundPostgres | undefined;

export function ensurePostgres(options?: {
  env?: NodeJS.ProcessEnv;
  isRoot?: boolean;
  /** Default: true unless BATON_SKIP_POSTGRES_INSTALL=1. */
  install?: boolean;
  /** Where Debian's per-version folders live (tests point it at a temporary folder). */
  debianRoot?: string;
  log?: (line: string) => void;
}): Promise<EnsureResult>;
