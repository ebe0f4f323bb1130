/** What every server-sent-event stream of the supervisor shares. */
import type { SSEStreamingApi } from 'hono/streaming';

/** How often an idle stream sends a comment line. */
export const SSE_KEEPALIVE_MS = 15_000;

/**
 * Sends a comment line every `ms` so clients and proxies see the stream is alive, and so a
 * client that vanished surfaces as a write error (which aborts the stream). Returns the stop.
 */
export function keepAlive(stream: SSEStreamingApi, ms = SSE_KEEPALIVE_MS): () => void {
  const timer = setInterval(() => {
    stream.write(': keep-alive\n\n').catch(() => stream.abort());
  }, ms);
  return () => clearInterval(timer);
}
