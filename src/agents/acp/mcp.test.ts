import { describe, expect, it } from 'vitest';
import { acpMcpServers } from './mcp.js';

const stdio = { command: '/usr/bin/node', args: ['/b/baton', 'mcp'], env: { BATON_X: '/d' }, cwd: '/w' };
const http = {
  url: 'http://127.0.0.1:4000/mcp',
  tokenVariable: 'BATON_SESSION_MCP_TOKEN',
  token: 'baton-session.s1.secret',
};

describe("Baton's MCP server for an ACP agent", () => {
  it("is the supervisor's HTTP endpoint, the credential in a header, when the agent takes HTTP servers", () => {
    expect(acpMcpServers({ stdio, http }, true)).toEqual([
      {
        type: 'http',
        name: 'baton',
        url: 'http://127.0.0.1:4000/mcp',
        headers: [{ name: 'Authorization', value: 'Bearer baton-session.s1.secret' }],
      },
    ]);
  });

  it('is `baton mcp` on stdio when the agent does not say it takes HTTP, or there is no endpoint', () => {
    const expected = [
      {
        name: 'baton',
        command: '/usr/bin/node',
        args: ['/b/baton', 'mcp'],
        env: [{ name: 'BATON_X', value: '/d' }],
      },
    ];
    expect(acpMcpServers({ stdio, http }, false)).toEqual(expected);
    expect(acpMcpServers({ stdio }, true)).toEqual(expected);
    expect(acpMcpServers(undefined, true)).toEqual([]);
  });
});
