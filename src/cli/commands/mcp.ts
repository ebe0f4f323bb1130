/**
 * `baton mcp`: Baton's MCP server on stdio, for any MCP client. Inside a session Baton started,
 * the agent runs it with BATON_SESSION_CREDENTIAL_FILE set and it acts as that session only;
 * anywhere else it acts for the user, with the token (starting the supervisor when needed).
 * Standard output carries the protocol alone: nothing else may be printed there.
 */
import { createBatonMcpServer, LineLimitedStdioTransport, readCredentialFile } from '../../mcp/serve.js';
import { InvalidInputError } from '../../shared/errors.js';
import { VERSION } from '../../shared/version.js';
import { connectAsSession } from '../session-client.js';
import { client } from '../connect.js';
import type { Context } from '../context.js';

export async function mcp(ctx: Context): Promise<void> {
  const file = ctx.env.BATON_SESSION_CREDENTIAL_FILE;
  let connect = () => client(ctx);
  if (file !== undefined && file !== '') {
    // Read once, at start: the credential belongs to this run of the agent; a later one is another's.
    let credential: string;
    try {
      credential = readCredentialFile(file);
    } catch (error) {
      throw new InvalidInputError(
        `BATON_SESSION_CREDENTIAL_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): the session has ended, or this is not a session Baton started.`,
      );
    }
    connect = () => connectAsSession(ctx.home, ctx.cwd, credential, file);
  }
  const server = createBatonMcpServer({ connect, version: VERSION });
  // Not the SDK's transport: one message over its limit closed it, and the agent lost its tools (stdio.ts).
  const transport = new LineLimitedStdioTransport();
  transport.onerror = (error) => process.stderr.write(`baton mcp: ${error.message}\n`);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await server.connect(transport);
  // The client ends the server by closing our stdin.
  process.stdin.once('end', () => void server.close());
  await closed;
}
