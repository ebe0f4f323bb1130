import { describe, expect, it } from 'vitest';
import { claudeMcpOptions } from './mcp.js';

const stdio = { command: '/usr/bin/node', args: ['/b/baton', 'mcp'], env: { BATON_HOME: '/h' }, cwd: '/w' };

describe("Baton's MCP server for claude", () => {
  it("is the supervisor's HTTP endpoint, its bearer named by variable so no credential is on the command line", () => {
    const http = {
      url: 'http://127.0.0.1:4000/mcp',
      tokenVariable: 'BATON_SESSION_MCP_TOKEN',
      token: 'baton-session.s1.secret',
    };
    const options = claudeMcpOptions({ stdio, http });
    expect(options).toEqual({
      mcpServersDelivery: 'argv',
      mcpServers: {
        baton: {
          type: 'http',
          url: 'http://127.0.0.1:4000/mcp',
          headers: { Authorization: 'Bearer ${BATON_SESSION_MCP_TOKEN}' },
          timeout: 86_400_000,
          alwaysLoad: true,
        },
      },
      allowedTools: ['mcp__baton'],
    });
    expect(JSON.stringify(options)).not.toContain('secret');
  });

  it('falls back to a stdio server named baton, its tools allowed and loaded before the first turn', () => {
    const options = claudeMcpOptions({ stdio });
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
