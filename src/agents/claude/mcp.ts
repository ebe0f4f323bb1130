/**
 * Baton's MCP server in Claude Code's terms: one stdio server named `baton` in the Agent SDK's
 * `mcpServers`, its tools allowed without asking (they act only as this session, through the
 * session's own credential) and loaded before the first turn, so the model can call them at once.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { BATON_MCP_SERVER, type McpServerCommand } from '../types.js';

/** An `ask_user` call waits for the user; a person may take a day to answer. */
const TOOL_TIMEOUT_MS = 24 * 3600 * 1000;

export function claudeMcpOptions(
  server: McpServerCommand | undefined,
): Pick<Options, 'mcpServers' | 'mcpServersDelivery' | 'allowedTools'> {
  if (server === undefined) return {};
  return {
    // The server's env holds paths only (the credential stays in its file), so the command line may carry it.
    mcpServersDelivery: 'argv',
    mcpServers: {
      // Claude starts its MCP servers in its own folder: the session's worktree (server.cwd).
      [BATON_MCP_SERVER]: {
        type: 'stdio',
        command: server.command,
        args: server.args,
        env: server.env,
        timeout: TOOL_TIMEOUT_MS,
        alwaysLoad: true,
      },
    },
    // A permission rule naming the server allows each of its tools.
    allowedTools: [`mcp__${BATON_MCP_SERVER}`],
  };
}
