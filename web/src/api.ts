/**
 * The page's side of the supervisor API: the shared typed client (src/api/client.ts) on fetch.
 * Requests ride on the login cookie; the browser adds our Origin to every POST, which the
 * supervisor requires for cookie-authenticated writes. Tables are types only here, so no
 * schema reaches the board's bundle.
 */
import {
  ApiClient,
  requestLine,
  type LineInput,
  type StreamRoute,
  type Transport,
} from '../../src/api/client.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Set when the supervisor says we are not logged in, so the shell can say how to log in. */
export const authListeners = new Set<() => void>();

const fetchTransport: Transport = async ({ method, path, body }) => {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.status,
    text: await response.text(),
    header: (name) => response.headers.get(name) ?? undefined,
  };
};

export const api = new ApiClient(fetchTransport, (status, body) => {
  if (status === 401) for (const listener of authListeners) listener();
  return new ApiError(status, body?.error.code ?? 'http', body?.error.message ?? `HTTP ${status}`);
});

/** The URL of a stream endpoint, for an EventSource. */
export function streamUrl<R extends StreamRoute>(route: R, input: LineInput<R>): string {
  return requestLine(route, input).path;
}

export { onStreamMessage } from '../../src/api/client.js';

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
