/**
 * Request bodies of at most `maxBytes`: by Content-Length when one is given, else counted while
 * read, so an oversized body is never held whole. An oversized one is answered 413 with the
 * JSON error, and the rest of it is read and dropped meanwhile: a server that stops reading and
 * closes while the client is still sending makes the kernel reset the connection, and the reset
 * discards the 413 before the client reads it (a chunked upload saw a cut connection, not the
 * answer). At most `DISCARD_BYTES` more are dropped, then the connection is closed; within that the
 * connection stays open for the client's next request (decision 197). A `Connection: close` was
 * tried and brought the reset back, since it closes at once.
 *
 * A body within the limit is read whole before any handler runs, whether a handler reads it or
 * not: the adapter's body stream has already started reading the request, so Node no longer drops
 * what is left of it, and a body nobody finished reading held its connection, and the next request
 * sent on it was never answered.
 */
import type { MiddlewareHandler } from 'hono';
import { RequestTooLargeError } from '../shared/errors.js';

export function bodyLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (body === null) return next();
    const tooLarge = (reader: ReadableStreamDefaultReader<Uint8Array>): never => {
      void discard(reader);
      throw new RequestTooLargeError(maxBytes);
    };
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > maxBytes) tooLarge(body.getReader());
    }
    const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const read = (await reader.read()) as
        { done: true; value?: undefined } | { done: false; value: Uint8Array };
      if (read.done) break;
      const { value } = read;
      size += value.length;
      if (size > maxBytes) tooLarge(reader);
      chunks.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
    return next();
  };
}

/** How much of a refused body is read and dropped before its connection is closed. */
export const DISCARD_BYTES = 64 * 1024 * 1024;

async function discard(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    let dropped = 0;
    for (;;) {
      const read = await reader.read();
      if (read.done) return;
      dropped += read.value.length;
      if (dropped > DISCARD_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // the connection was closed: nothing left to drop
  }
}
