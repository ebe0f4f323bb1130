/**
 * Baton's MCP server in Codex's terms: an `mcp_servers.baton` entry given to `codex app-server`
 * as `-c` overrides on its command line (the user's own `config.toml` is not touched; a thread's
 * config overrides do not start MCP servers) — the supervisor's streamable HTTP endpoint, its
 * bearer read by codex from a variable of its environment (`bearer_token_env_var`), or the stdio
 * `baton mcp` run in the session's worktree as the fallback. Either entry holds no secret — the
 * credential stays in its file or in codex's environment — so the command line may carry it. Codex
 * offers MCP tools to the model in a namespace (`mcp__baton` + the tool's name), and may defer
 * them behind its `tool_search` tool; either way a call reaches this server.
 */
import { BATON_MCP_SERVER, type BatonMcp } from '../types.js';

/** An `ask_user` call waits for the user; Codex's default (60 s) would end it long before a person answers. */
const TOOL_TIMEOUT_S = 24 * 3600;

export function codexMcpArgs(server: BatonMcp | undefined): string[] {
  if (server === undefined) return [];
  const key = `mcp_servers.${BATON_MCP_SERVER}`;
  const { http, stdio } = server;
  const env = Object.entries(stdio.env).map(([name, value]) => `${name}=${toml(value)}`);
  const transport =
    http === undefined
      ? [
          ['command', toml(stdio.command)],
          ['args', `[${stdio.args.map(toml).join(', ')}]`],
          ['env', `{ ${env.join(', ')} }`],
          ['cwd', toml(stdio.cwd)],
        ]
      : [
          ['url', toml(http.url)],
          ['bearer_token_env_var', toml(http.tokenVariable)],
        ];
  return [
    ...transport,
    ['tool_timeout_sec', String(TOOL_TIMEOUT_S)],
    ['startup_timeout_sec', String(STARTUP_TIMEOUT_S)],
    // Its tools act only as this session, through the session's own credential: no approval each call.
    ['default_tools_approval_mode', '"approve"'],
  ].flatMap(([field, value]) => ['-c', `${key}.${field}=${value}`]);
}

/** Codex's own limit for the server to start; it reports `failed` after it. */
const STARTUP_TIMEOUT_S = 30;
/** A codex that never reports its MCP servers' start (another version) must not hold the session for ever. */
const UNREPORTED_START_MS = (STARTUP_TIMEOUT_S + 5) * 1000;

/**
 * Codex starts MCP servers beside the thread and says when each is `ready` or `failed`
 * (`mcpServer/startupStatus/updated`). A turn sent before Baton's is ready would offer the model
 * none of its tools (seen under load: "unsupported call"), so the thread counts as ready only once
 * codex has reported on it.
 */
export class BatonMcpStartup {
  private settled: boolean;
  private started = false;
  private guard: NodeJS.Timeout | undefined;

  constructor(
    attached: boolean,
    private readonly ready: () => void,
    private readonly warn: (message: string) => void,
  ) {
    this.settled = !attached;
  }

  /** The thread is started (or resumed). */
  threadStarted(): void {
    this.started = true;
    if (this.settled) return this.ready();
    this.guard = setTimeout(() => this.settle(), UNREPORTED_START_MS);
    this.guard.unref();
  }

  status(update: { name: string; status: string; error?: string | null | undefined }): void {
    if (update.name !== BATON_MCP_SERVER || update.status === 'starting') return;
    if (update.status !== 'ready')
      this.warn(
        `Baton's MCP server did not start in codex (${update.status}${update.error ? `: ${update.error}` : ''}); the agent works without its tools`,
      );
    this.settle();
  }

  private settle(): void {
    clearTimeout(this.guard);
    if (this.settled) return;
    this.settled = true;
    if (this.started) this.ready();
  }
}

/** A TOML basic string: JSON's escapes are TOML's. */
function toml(value: string): string {
  return JSON.stringify(value);
}
