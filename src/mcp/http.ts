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

/** The calls being answered now, each with what ends its wait and when its answer has been written. */
const running = new Set<{ stop: AbortController; done: Promise<void> }>();

/**
 * Before the supervisor stops: every call still running (an `ask_user` waiting on the user) ends
 * now with an answer saying to ask again, written out before the process exits — cut instead,
 * the agent's MCP client waited on for a stream that would never come back (the SDK's client
 * until its own timeout). Bounded: a client that does not read its answer does not hold the stop.
 */
export async function endMcpCalls(limitMs = 2_000): Promise<void> {
  const calls = [...running];
  if (calls.length === 0) return;
  for (const call of calls) call.stop.abort();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(calls.map((call) => call.done)),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs))),
  ]);
  clearTimeout(timer);
}

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
  const stop = new AbortController();
  let finished = (): void => undefined;
  const call = { stop, done: new Promise<void>((resolve) => (finished = resolve)) };
  const server = createBatonMcpServer({ connect, version, stopping: stop.signal });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  // Closing the server aborts the calls it is running: their client has gone.
  const close = (): void => {
    running.delete(call);
    finished();
    void server.close();
  };
  request.signal.addEventListener('abort', close, { once: true });
  transport.onclose = () => request.signal.removeEventListener('abort', close);
  running.add(call);
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  // A JSON answer, or none (a notification): this request is done. A stream is done once the
  // server has written all of it (the transport closes it when its answers are sent).
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream') || response.body === null) {
    close();
    return response;
  }
  const body = response.body.pipeThrough(new TransformStream({ flush: close }));
  return new Response(body, { status: response.status, headers: response.headers });
}
