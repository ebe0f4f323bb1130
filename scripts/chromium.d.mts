/** Types for chromium.mjs (plain JavaScript so that it runs before anything is built). */
export interface FoundChromium {
  path: string;
  /** Where it was found: a variable name, "<name> on PATH" or "Playwright's browser cache". */
  source: string;
}

export type EnsureResult = ({ ok: true; installed?: true } & FoundChromium) | { ok: false; message: string };

export const ENV_VARS: readonly string[];
export const PATH_NAMES: readonly string[];
export const SKIP_INSTALL_VAR: string;

export function findChromium(env?: NodeJS.ProcessEnv): FoundChromium | undefined;

export function ensureChromium(options?: {
  env?: NodeJS.ProcessEnv;
  isRoot?: boolean;
  /** Default: true unless BATON_SKIP_CHROMIUM_INSTALL=1. */
  install?: boolean;
  log?: (line: string) => void;
}): Promise<EnsureResult>;
