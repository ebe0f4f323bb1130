/**
 * Whose setup a Codex session loads. By default the user's own: their `CODEX_HOME` (config,
 * login, MCP servers), as `codex` itself would, and the repository's AGENTS.md. A repository may
 * turn either off (`.baton/config.json` → `agents.codex.settingSources`): without `user`, codex
 * gets a private CODEX_HOME in the session's state folder that holds only the user's login, so
 * it can still authenticate; without `project`, it reads no AGENTS.md.
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface CodexSetup {
  env: NodeJS.ProcessEnv;
  /** Config overrides for the thread. */
  config: Record<string, unknown>;
}

export function codexSetup(
  sources: readonly string[] | undefined,
  env: NodeJS.ProcessEnv,
  stateDir: string,
): CodexSetup {
  const wanted = sources ?? ['user', 'project'];
  const config: Record<string, unknown> = {};
  if (!wanted.includes('project')) config.project_doc_max_bytes = 0;
  if (wanted.includes('user')) return { env, config };
  const userHome = env.CODEX_HOME ?? join(env.HOME ?? homedir(), '.codex');
  const privateHome = join(stateDir, 'codex-home');
  mkdirSync(privateHome, { recursive: true });
  const login = join(userHome, 'auth.json');
  const linked = join(privateHome, 'auth.json');
  if (existsSync(login) && !existsSync(linked)) symlinkSync(login, linked);
  return { env: { ...env, CODEX_HOME: privateHome }, config };
}
