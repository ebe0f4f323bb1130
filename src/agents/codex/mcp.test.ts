import { describe, expect, it } from 'vitest';
import { codexMcpArgs } from './mcp.js';

describe("Baton's MCP server for codex", () => {
  it('is none when the session has none', () => {
    expect(codexMcpArgs(undefined)).toEqual([]);
  });

  it('is a set of -c overrides of mcp_servers.baton, its strings quoted as TOML strings', () => {
    const args = codexMcpArgs({ command: '/usr/bin/node', args: ['/opt/baton "x"/bin/baton', 'mcp'], env: { BATON_HOME: '/h\\ome' }, cwd: '/w/t' });
    expect(args).toEqual([
      '-c', 'mcp_servers.baton.command="/usr/bin/node"',
      '-c', 'mcp_servers.baton.args=["/opt/baton \\"x\\"/bin/baton", "mcp"]',
      '-c', 'mcp_servers.baton.env={ BATON_HOME="/h\\\\ome" }',
      '-c', 'mcp_servers.baton.cwd="/w/t"',
      '-c', 'mcp_servers.baton.tool_timeout_sec=86400',
      '-c', 'mcp_servers.baton.default_tools_approval_mode="approve"',
    ]);
  });
});
