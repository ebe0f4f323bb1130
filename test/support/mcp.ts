/**
 * Baton's MCP server as an MCP client sees it: `baton mcp` spawned over stdio by the official
 * SDK's own client — as a session's agent runs it (with the session's credential file) or as any
 * client outside Baton (with the token). Closing the client ends the server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { TestBaton } from './baton.js';
import { credentialPath } from '../../src/mcp/credentials.js';
import { BIN } from './baton.js';

export interface ToolAnswer {
  text: string;
  isError: boolean;
}

export class McpSession {
  private constructor(
    readonly client: Client,
    readonly transport: StdioClientTransport,
  ) {}

  /** `sessionId`: run as that session's MCP server (its credential file), else as a client outside Baton. */
  static async start(t: TestBaton, options: { sessionId?: string; cwd?: string } = {}): Promise<McpSession> {
    const env = { ...(t.env as Record<string, string>) };
    if (options.sessionId !== undefined)
      env.BATON_SESSION_CREDENTIAL_FILE = credentialPath(t.home, options.sessionId);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env,
      cwd: options.cwd ?? t.root,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'baton-test', version: '1.0.0' });
    await client.connect(transport);
    return new McpSession(client, transport);
  }

  get pid(): number | null {
    return this.transport.pid;
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
    const result = await this.client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text?: string }[];
    return { text: content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
