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
 *
 * A body is read only for a request that can pass the guard after it (decision 331): one with no
 * credential that could (an unauthenticated `POST /api/hooks/routines/…`, or any API call
 * without the token) has its body dropped as it arrives, never held, and is refused from its
 * headers; a routine's hook takes a few strings, so its bodies are capped small; and every body
 * must arrive within a deadline, past which its connection is closed. Before, 300 slow
 * unauthenticated hook calls held 277 MB and their connections for ever.
 *
 * A dropped body is dropped up to `DISCARD_BYTES` whatever the request's own limit, as for a 413,
 * and when the drop gives up it closes the connection itself (decision 355, "A refused body is
 * dropped whole or its connection closed"): cancelling the adapter's body stream does not reach
 * the socket, so the rest of the body stayed unread on it and the next request a kept-alive client
 * sent there was never answered (a refused 300 KB hook upload, then any request on that socket).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Socket } from 'node:net';
import { RequestTooLargeError } from '../shared/errors.js';

export interface BodyLimitOptions {
  /** A smaller limit for some requests (a routine's hook); undefined keeps `maxBytes`. */
  limitFor?: (c: Context) => number | undefined;
  /** False for a request the guard will refuse: its body is dropped unread, the guard answers. */
  mayRead?: (c: Context) => boolean;
  /** How long a body may take to arrive, from its headers; past it the connection is closed. */
  deadlineMs?: number;
  /** How much of a refused body is dropped before its connection is closed (default `DISCARD_BYTES`). */
  discardBytes?: number;
}

/** A body's time to arrive: a megabyte over loopback takes milliseconds, on a busy machine seconds. */
export const BODY_DEADLINE_MS = 60_000;

export function bodyLimit(maxBytes: number, options: BodyLimitOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (body === null) return next();
    const limit = options.limitFor?.(c) ?? maxBytes;
    const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
    const socket = socketOf(c);
    const deadline = new Deadline(reader, socket, options.deadlineMs ?? BODY_DEADLINE_MS);
    const drop = (): void =>
      void discard(reader, socket, options.discardBytes ?? DISCARD_BYTES).finally(() => deadline.clear());
    if (options.mayRead !== undefined && !options.mayRead(c)) {
      // The guard refuses it from its headers; what it sends is dropped meanwhile, as for a 413:
      // all of it, not just up to its limit, so that the refusal reaches a client still sending.
      drop();
      return next();
    }
    const tooLarge = (): never => {
      drop();
      throw new RequestTooLargeError(limit);
    };
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > limit) tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const read = (await reader.read()) as
        { done: true; value?: undefined } | { done: false; value: Uint8Array };
      if (deadline.expired) return c.body(null, 408);
      if (read.done) break;
      const { value } = read;
      size += value.length;
      if (size > limit) tooLarge();
      chunks.push(value);
    }
    deadline.clear();
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
    return next();
  };
}

/** The Node socket under a request, when the HTTP adapter passes it (`c.env.incoming`). */
function socketOf(c: Context): Socket | undefined {
  const env = c.env as { incoming?: { socket?: Socket } } | undefined;
  return env?.incoming?.socket;
}

/** Closes the connection of a body still arriving when its time is up: nothing is answered on it. */
class Deadline {
  expired = false;
  private readonly timer: NodeJS.Timeout;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, socket: Socket | undefined, ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      void reader.cancel().catch(() => undefined);
      socket?.destroy();
    }, ms);
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** How much of a refused body is read and dropped before its connection is closed. */
export const DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * Reads and drops a refused body. Past `most` bytes it gives up and closes the connection: the
 * cancel alone stops the adapter's stream but leaves the rest of the body unread on the socket,
 * where a kept-alive client's next request would wait behind it unanswered.
 */
async function discard(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  socket: Socket | undefined,
  most: number,
): Promise<void> {
  try {
    let dropped = 0;
    for (;;) {
      const read = await reader.read();
      if (read.done) return;
      dropped += read.value.length;
      if (dropped > most) {
        socket?.destroy();
        await reader.cancel();
        return;
      }
    }
  } catch {
    // the connection was closed: nothing left to drop
  }
}
