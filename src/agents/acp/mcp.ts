/**
 * Baton's MCP server in ACP's terms: a stdio entry of `session/new`'s (and `session/load`'s)
 * `mcpServers`, named `baton`. ACP's entry has no working folder: the agent starts it in the
 * session's cwd, which is the worktree.
 */
import { BATON_MCP_SERVER, type McpServerCommand } from '../types.js';

export interface AcpStdioServer {
  name: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

export function acpMcpServers(server: McpServerCommand | undefined): AcpStdioServer[] {
  if (server === undefined) return [];
  return [
    {
      name: BATON_MCP_SERVER,
      command: server.command,
      args: server.args,
      env: Object.entries(server.env).map(([name, value]) => ({ name, value })),
    },
  ];
}
