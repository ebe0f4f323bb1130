/**
 * One endpoint of the supervisor's API, keyed in its domain's table by its route string
 * (`'POST /api/sessions/:ref/reply'`). The table drives the server's handlers, the OpenAPI
 * document and the typed client; the client imports tables with `import type` only, so nothing
 * here or in a table runs in the CLI or the browser.
 */
import type { z } from 'zod';

export interface EndpointSpec {
  summary: string;
  /** The JSON request body, parsed by the server with this schema before the handler runs. */
  body?: z.ZodType;
  /** Query parameters: an object of optional string-typed fields (the server parses them). */
  query?: z.ZodObject;
  /** The JSON response (the handler's return value is typed by it). */
  response?: z.ZodType;
  /** HTTP status of a JSON success; 200 unless set. */
  status?: 200 | 201;
  /**
   * A server-sent event stream: event name → message schema. With `response` too, the stream is
   * what the endpoint answers when the query asks to follow.
   */
  sse?: Record<string, z.ZodType>;
  /** A plain-text answer of this content type (e.g. a diff) rather than JSON. */
  text?: string;
  /**
   * Only for the token's holder (the CLI), never for a browser's login cookie: actions a page
   * must not be able to take for the user, however it was made to send the request.
   */
  tokenOnly?: true;
  /**
   * What a session's own credential (the MCP server Baton attaches to a session) may do here:
   * `read` — anything the endpoint shows, workspace-wide; `own` — only as that session (a `:ref`
   * must name it; otherwise the handler acts for the caller). Unset: refused to a session.
   */
  sessions?: 'read' | 'own';
}

/** Identity at run time; keeps each entry's literal type for the client and the handlers. */
export function endpoint<const S extends EndpointSpec>(spec: S): S {
  return spec;
}

export type Method = 'GET' | 'POST' | 'DELETE';
export type Table = Record<`${Method} /api/${string}`, EndpointSpec>;

/** `'/api/sessions/:ref/peek'` → `{ ref: string }`. */
export type ParamsOf<Route extends string> = Route extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : Route extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;

type Output<T> = T extends z.ZodType ? z.output<T> : never;
type Input<T> = T extends z.ZodType ? z.input<T> : never;

export type BodyOf<S extends EndpointSpec> = S extends { body: infer B } ? Output<B> : undefined;
export type BodyInputOf<S extends EndpointSpec> = S extends { body: infer B } ? Input<B> : undefined;
export type QueryOf<S extends EndpointSpec> = S extends { query: infer Q } ? Output<Q> : Record<never, never>;
export type ResponseOf<S extends EndpointSpec> = S extends { response: infer R } ? Output<R> : never;
/** What a client may pass as the query: the parsed types, or the strings they come from. */
export type QueryInputOf<S extends EndpointSpec> = S extends { query: infer Q }
  ? { [K in keyof Output<Q>]?: Output<Q>[K] | string }
  : Record<never, never>;
