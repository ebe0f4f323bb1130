/**
 * Baton's MCP server in ACP's terms: an entry of `session/new`'s (and `session/load`'s)
 * `mcpServers`, named `baton` — the supervisor's streamable HTTP endpoint when the agent says it
 * takes HTTP servers (`mcpCapabilities.http`), else the stdio `baton mcp`. The HTTP entry carries
 * the session's credential as a header: it goes to the agent over its stdin, never a command line.
 * ACP's stdio entry has no working folder: the agent starts it in the session's cwd, the worktree.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { BATON_MCP_SERVER, type BatonMcp } from '../types.js';

export function acpMcpServers(server: BatonMcp | undefined, takesHttp: boolean): McpServer[] {
  if (server === undefined) return [];
  const { http, stdio } = server;
  if (http !== undefined && takesHttp)
    return [
      {
        type: 'http',
        name: BATON_MCP_SERVER,
        url: http.url,
        headers: [{ name: 'Authorization', value: `Bearer ${http.token}` }],
      },
    ];
  return [
    {
      name: BATON_MCP_SERVER,
      command: stdio.command,
      args: stdio.args,
      env: Object.entries(stdio.env).map(([name, value]) => ({ name, value })),
    },
  ];
}
