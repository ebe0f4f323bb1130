/**
 * Baton's MCP server in Claude Code's terms: one server named `baton` in the Agent SDK's
 * `mcpServers` — the supervisor's streamable HTTP endpoint, or the stdio `baton mcp` as the
 * fallback — its tools allowed without asking (they act only as this session, through the
 * session's own credential) and loaded before the first turn, so the model can call them at once.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { BATON_MCP_SERVER, type BatonMcp } from '../types.js';

/** An `ask_user` call waits for the user; a person may take a day to answer. */
const TOOL_TIMEOUT_MS = 24 * 3600 * 1000;

export function claudeMcpOptions(
  server: BatonMcp | undefined,
): Pick<Options, 'mcpServers' | 'mcpServersDelivery' | 'allowedTools'> {
  if (server === undefined) return {};
  const { http, stdio } = server;
  return {
    // The entry holds no secret: the stdio server's env holds paths only (the credential stays in
    // its file), and the HTTP header names a variable of claude's environment, which claude
    // expands (`${VAR}`) — so the command line may carry it, whatever version of claude runs.
    mcpServersDelivery: 'argv',
    mcpServers: {
      [BATON_MCP_SERVER]:
        http === undefined
          ? {
              // Claude starts its MCP servers in its own folder: the session's worktree (stdio.cwd).
              type: 'stdio',
              command: stdio.command,
              args: stdio.args,
              env: stdio.env,
              timeout: TOOL_TIMEOUT_MS,
              alwaysLoad: true,
            }
          : {
              type: 'http',
              url: http.url,
              headers: { Authorization: `Bearer \${${http.tokenVariable}}` },
              timeout: TOOL_TIMEOUT_MS,
              alwaysLoad: true,
            },
    },
    // A permission rule naming the server allows each of its tools.
    allowedTools: [`mcp__${BATON_MCP_SERVER}`],
  };
}
