/**
 * Baton's MCP server over streamable HTTP, served by the supervisor for every session's agent at
 * once (decision 365, "One MCP server in the supervisor, over streamable HTTP"): where each agent
 * used to start a `baton mcp` process of its own (~30 MB PSS, ~70 MB RSS each), one endpoint on
 * the supervisor's loopback port answers them all.
 *
 * Stateless, in the SDK's terms: each POST gets a server and a transport of its own, made for the
 * calling session and gone with the answer. Nothing is kept between requests, so a supervisor
 * restarted on its port serves an agent's next call as if nothing happened (a stateful endpoint
 * would answer "session not found" to every agent it had before). A request's client going away
 * (the agent interrupted, its call timed out) ends the call it made: an `ask_user` stops waiting.
 *
 * The SDK and the tools' schemas are loaded at the first call, not with the supervisor: a
 * supervisor no agent calls (scripted sessions, the CLI's own start) does not pay for them.
 */
import type { BatonApi } from './server.js';

/** The endpoint's path on the supervisor's port. */
export const MCP_HTTP_PATH = '/mcp';
/**
 * The variable of the agent's environment holding its bearer (the session's own credential), for
 * the agent's MCP client to read: configurations name it, never the credential. "TOKEN" in its
 * name also keeps it from the commands Codex runs (its shell environment leaves such names out).
 */
export const MCP_TOKEN_VARIABLE = 'BATON_SESSION_MCP_TOKEN';

/** One JSON-RPC error answer, for what is refused before the MCP server sees it. */
export function mcpErrorResponse(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

/**
 * Answers one request to the endpoint for a caller already authenticated as a session: `connect`
 * reaches the API as that session. GET (a stream for server-sent messages) and DELETE (ending an
 * MCP session) have nothing to do where no MCP session is kept: 405, as the protocol allows.
 */
export async function serveMcpRequest(
  request: Request,
  connect: () => Promise<BatonApi>,
  version: string,
): Promise<Response> {
  if (request.method !== 'POST')
    return mcpErrorResponse(405, `${request.method} is not served here: send each message as a POST.`);
  const [{ WebStandardStreamableHTTPServerTransport }, { createBatonMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./server.js'),
  ]);
  const server = createBatonMcpServer({ connect, version });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  // Closing the server aborts the calls it is running: their client has gone.
  const close = (): void => void server.close();
  request.signal.addEventListener('abort', close, { once: true });
  transport.onclose = () => request.signal.removeEventListener('abort', close);
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  // A JSON answer, or none (a notification): this request is done. A stream closes the transport itself when its answer is sent.
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) close();
  return response;
}
