/**
 * Baton's MCP server in Codex's terms: an `mcp_servers.baton` entry of the thread's config
 * overrides (the user's own `config.toml` is not touched), started in the session's worktree.
 */
import { BATON_MCP_SERVER, type McpServerCommand } from '../types.js';

/** An `ask_user` call waits for the user; Codex's default (60 s) would end it long before a person answers. */
const TOOL_TIMEOUT_S = 24 * 3600;

export function codexMcpConfig(server: McpServerCommand | undefined): Record<string, unknown> {
  if (server === undefined) return {};
  return {
    mcp_servers: {
      [BATON_MCP_SERVER]: { command: server.command, args: server.args, env: server.env, cwd: server.cwd, tool_timeout_sec: TOOL_TIMEOUT_S },
    },
  };
}
