import { describe, expect, it } from 'vitest';
import { BatonMcpStartup, codexMcpArgs } from './mcp.js';

describe("Baton's MCP server for codex", () => {
  it('is none when the session has none', () => {
    expect(codexMcpArgs(undefined)).toEqual([]);
  });

  it('is a set of -c overrides of mcp_servers.baton, its strings quoted as TOML strings', () => {
    const args = codexMcpArgs({
      stdio: {
        command: '/usr/bin/node',
        args: ['/opt/baton "x"/bin/baton', 'mcp'],
        env: { BATON_HOME: '/h\\ome' },
        cwd: '/w/t',
      },
    });
    expect(args).toEqual([
      '-c',
      'mcp_servers.baton.command="/usr/bin/node"',
      '-c',
      'mcp_servers.baton.args=["/opt/baton \\"x\\"/bin/baton", "mcp"]',
      '-c',
      'mcp_servers.baton.env={ BATON_HOME="/h\\\\ome" }',
      '-c',
      'mcp_servers.baton.cwd="/w/t"',
      '-c',
      'mcp_servers.baton.tool_timeout_sec=86400',
      '-c',
      'mcp_servers.baton.startup_timeout_sec=30',
      '-c',
      'mcp_servers.baton.default_tools_approval_mode="approve"',
    ]);
  });
});

describe("Baton's MCP endpoint for codex", () => {
  it('is a streamable HTTP server whose bearer codex reads from a variable: no credential on the command line', () => {
    const args = codexMcpArgs({
      stdio: { command: '/usr/bin/node', args: ['/b/baton', 'mcp'], env: {}, cwd: '/w' },
      http: {
        url: 'http://127.0.0.1:4000/mcp',
        tokenVariable: 'BATON_SESSION_MCP_TOKEN',
        token: 'baton-session.s1.secret',
      },
    });
    expect(args.filter((arg) => arg !== '-c')).toEqual([
      'mcp_servers.baton.url="http://127.0.0.1:4000/mcp"',
      'mcp_servers.baton.bearer_token_env_var="BATON_SESSION_MCP_TOKEN"',
      'mcp_servers.baton.tool_timeout_sec=86400',
      'mcp_servers.baton.startup_timeout_sec=30',
      'mcp_servers.baton.default_tools_approval_mode="approve"',
    ]);
    expect(args.join(' ')).not.toContain('secret');
  });
});

describe("the first turn of a codex session with Baton's MCP server", () => {
  function harness(attached: boolean) {
    const log: string[] = [];
    const startup = new BatonMcpStartup(
      attached,
      () => log.push('ready'),
      (message) => log.push(message),
    );
    return { log, startup };
  }

  it('waits until codex reports the server ready, whichever comes first', () => {
    const a = harness(true);
    a.startup.threadStarted();
    a.startup.status({ name: 'baton', status: 'starting' });
    a.startup.status({ name: 'users-own', status: 'ready' });
    expect(a.log).toEqual([]);
    a.startup.status({ name: 'baton', status: 'ready' });
    expect(a.log).toEqual(['ready']);
    const b = harness(true);
    b.startup.status({ name: 'baton', status: 'ready' });
    expect(b.log).toEqual([]);
    b.startup.threadStarted();
    expect(b.log).toEqual(['ready']);
  });

  it('goes on without its tools, saying so, when the server failed; and does not wait without one', () => {
    const a = harness(true);
    a.startup.threadStarted();
    a.startup.status({ name: 'baton', status: 'failed', error: 'exited with 1' });
    expect(a.log).toEqual([
      "Baton's MCP server did not start in codex (failed: exited with 1); the agent works without its tools",
      'ready',
    ]);
    const b = harness(false);
    b.startup.threadStarted();
    expect(b.log).toEqual(['ready']);
  });
});
