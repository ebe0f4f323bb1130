import { describe, expect, it } from 'vitest';
import { claudeMcpOptions } from './mcp.js';

describe("Baton's MCP server for claude", () => {
  it('is a stdio server named baton, its tools allowed and loaded before the first turn', () => {
    const options = claudeMcpOptions({
      command: '/usr/bin/node',
      args: ['/b/baton', 'mcp'],
      env: { BATON_HOME: '/h' },
      cwd: '/w',
    });
    expect(options).toEqual({
      mcpServersDelivery: 'argv',
      mcpServers: {
        baton: {
          type: 'stdio',
          command: '/usr/bin/node',
          args: ['/b/baton', 'mcp'],
          env: { BATON_HOME: '/h' },
          timeout: 86_400_000,
          alwaysLoad: true,
        },
      },
      allowedTools: ['mcp__baton'],
    });
    expect(claudeMcpOptions(undefined)).toEqual({});
  });
});
