/**
 * The one typed client of the supervisor's API, for the CLI and the web UI alike. Method, path
 * and types come from the route key (`'POST /api/sessions/:ref/reply'`) and the tables, which
 * are imported as types only: no schema, no zod and no copy of the table runs here. The
 * transport (node:http with the token in the CLI, fetch with the cookie in the browser) and the
 * mapping of error answers to errors are the caller's.
 */
import type { z } from 'zod';
import type { BodyInputOf, ParamsOf, QueryInputOf, ResponseOf } from './endpoint.js';
import type { Endpoints, Route } from './endpoints.js';
import type { ApiErrorBody } from './index.js';

/**
 * Keep-alive times of the API's connections (decision 171): a client lets an idle connection go
 * after `clientIdleMs`, the server keeps one `serverMs`, far longer, so a connection a client
 * reuses is never one the server is closing at that moment (Node's defaults were equal, 5 s).
 */
export const KEEP_ALIVE = { clientIdleMs: 5_000, serverMs: 65_000, serverHeadersMs: 66_000 } as const;

export interface TransportRequest {
  method: string;
  /** Path and query, e.g. `/api/sessions?project=x`. */
  path: string;
  /** JSON text, when the endpoint takes a body. */
  body?: string;
  timeoutMs?: number;
}

export interface TransportResponse {
  status: number;
  text: string;
  header(name: string): string | undefined;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** Turns an error answer into the error the caller throws; `body` is set when it was the API's JSON error. */
export type ErrorMapper = (status: number, body: ApiErrorBody | undefined) => Error;

type Spec<R extends Route> = Endpoints[R];
type JsonRoute = { [R in Route]: Spec<R> extends { response: unknown } ? R : never }[Route];
type TextRoute = { [R in Route]: Spec<R> extends { text: string } ? R : never }[Route];
export type StreamRoute = { [R in Route]: Spec<R> extends { sse: object } ? R : never }[Route];
type Messages<R extends StreamRoute> = Spec<R> extends { sse: infer M } ? M : never;
/** A stream's message types by event name, from the table: `StreamMessage<'GET /api/stream', 'session'>`. */
export type StreamMessage<
  R extends StreamRoute,
  E extends keyof Messages<R>,
> = Messages<R>[E] extends z.ZodType ? z.output<Messages<R>[E]> : never;

type Optional<K extends string, T> = keyof T extends never ? { [P in K]?: T } : { [P in K]: T };
/** What a call takes: `params` when the path has any, `body` when the endpoint takes one, `query` always optional. */
export type CallInput<R extends Route> = Optional<'params', ParamsOf<R>> &
  (BodyInputOf<Spec<R>> extends undefined ? { body?: undefined } : { body: BodyInputOf<Spec<R>> }) & {
    query?: QueryInputOf<Spec<R>>;
    timeoutMs?: number;
  };

/** What a request line needs: the path's params and the query. */
export type LineInput<R extends Route> = Pick<CallInput<R>, 'params' | 'query'>;

export class ApiClient {
  constructor(
    private readonly transport: Transport,
    private readonly toError: ErrorMapper,
  ) {}

  /** A JSON endpoint's answer, typed by its response schema. */
  async call<R extends JsonRoute>(
    route: R,
    ...[input]: Record<never, never> extends CallInput<R> ? [CallInput<R>?] : [CallInput<R>]
  ): Promise<ResponseOf<Spec<R>>> {
    const response = await this.send(route, input);
    return JSON.parse(response.text) as ResponseOf<Spec<R>>;
  }

  /** A text endpoint's answer, with its headers. */
  async text<R extends TextRoute>(
    route: R,
    ...[input]: Record<never, never> extends CallInput<R> ? [CallInput<R>?] : [CallInput<R>]
  ): Promise<TransportResponse> {
    return this.send(route, input);
  }

  private async send(route: Route, input: Partial<CallInput<Route>> = {}): Promise<TransportResponse> {
    const { method, path } = line(route, input);
    const response = await this.transport({
      method,
      path,
      ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    });
    if (response.status >= 200 && response.status < 300) return response;
    throw this.toError(response.status, errorBody(response.text));
  }
}

/** The method and the path with query of a call; streams (SSE) are opened on this path by the caller. */
export function requestLine<R extends Route>(
  route: R,
  input: LineInput<R>,
): { method: string; path: string } {
  return line(route, input);
}

function line(route: Route, input: { params?: unknown; query?: unknown }): { method: string; path: string } {
  const space = route.indexOf(' ');
  const params = (input.params ?? {}) as Record<string, string>;
  const path = route
    .slice(space + 1)
    .replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const query = Object.entries((input.query ?? {}) as Record<string, unknown>)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(
      ([key, value]) =>
        `${encodeURIComponent(key)}=${encodeURIComponent(value === true ? '1' : String(value))}`,
    )
    .join('&');
  return { method: route.slice(0, space), path: query === '' ? path : `${path}?${query}` };
}

/** One message of a stream (an SSE `data` line), typed by the table for its route and event. */
export function streamMessage<R extends StreamRoute, E extends keyof Messages<R>>(
  _route: R,
  _event: E,
  data: string,
): StreamMessage<R, E> {
  return JSON.parse(data) as StreamMessage<R, E>;
}

/** What the browser's EventSource offers, so this module needs no DOM types. */
export interface MessageSource {
  addEventListener(type: string, listener: (message: { data: string }) => void): void;
}

/** Calls `handler` with each `event` message of a stream opened on `route`. */
export function onStreamMessage<R extends StreamRoute, E extends keyof Messages<R> & string>(
  source: MessageSource,
  route: R,
  event: E,
  handler: (message: StreamMessage<R, E>) => void,
): void {
  source.addEventListener(event, (message) => handler(streamMessage(route, event, message.data)));
}

function errorBody(text: string): ApiErrorBody | undefined {
  try {
    const body = JSON.parse(text) as Partial<ApiErrorBody>;
    return typeof body.error?.code === 'string' && typeof body.error.message === 'string'
      ? (body as ApiErrorBody)
      : undefined;
  } catch {
    return undefined;
  }
}
