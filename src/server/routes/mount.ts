/**
 * Registers a domain's handlers for its table of endpoints: the table's schemas parse the body
 * and the query before the handler runs (the only place a request body is parsed), and a JSON
 * handler's return value is sent with the table's status. Handlers are typed by the table, so a
 * missing one, or one answering the wrong shape, does not compile.
 */
import type { Context, Hono } from 'hono';
import type { BodyOf, EndpointSpec, ParamsOf, QueryOf, ResponseOf, Table } from '../../api/endpoint.js';
import { InvalidInputError } from '../../shared/errors.js';
import { PreparedJson } from '../../shared/prepared-json.js';

export interface HandlerInput<S extends EndpointSpec, R extends string> {
  params: ParamsOf<R>;
  query: QueryOf<S>;
  body: BodyOf<S>;
  /** The caller's working directory (`x-baton-cwd`), so names resolve in the caller's project first. */
  cwd: string | undefined;
  c: Context;
}

/**
 * Streams and text answers are Responses the handler builds; JSON answers are plain values, or
 * values kept serialized between requests (decision 465, "The kept board is sent as bytes made once, with a tag for a reload").
 */
type Result<S extends EndpointSpec> = S extends { sse: object } | { text: string }
  ? Response | ResponseOf<S>
  : ResponseOf<S> | PreparedJson<ResponseOf<S>>;

export type Handlers<T extends Table> = {
  [R in keyof T & string]: T[R] extends EndpointSpec
    ? (input: HandlerInput<T[R], R>) => Result<T[R]> | Promise<Result<T[R]>>
    : never;
};

export function mount<T extends Table>(app: Hono, table: T, handlers: Handlers<T>): void {
  for (const [route, spec] of Object.entries(table) as [keyof T & string, EndpointSpec][]) {
    const [method, path] = route.split(' ') as [string, string];
    const handler = handlers[route] as (input: HandlerInput<EndpointSpec, string>) => unknown;
    type Untyped = HandlerInput<EndpointSpec, string>;
    app.on(method, path, async (c) => {
      const body = (
        spec.body === undefined ? undefined : spec.body.parse(await readJson(c))
      ) as Untyped['body'];
      const query = spec.query === undefined ? {} : parseQuery(spec, c.req.query());
      const result = await handler({ params: c.req.param(), query, body, cwd: cwdOf(c), c });
      if (result instanceof Response) return result;
      if (result instanceof PreparedJson) return prepared(c, result, spec.status ?? 200);
      return c.json(result as object, spec.status ?? 200);
    });
  }
}

/**
 * A kept answer's bytes as they are, with their tag; "not modified" to a client that holds them.
 * `no-cache` has a browser keep the answer but ask again each time, so a reload is a 304, never a
 * stale board; `private`, as every answer here is for the token's or the login's holder alone.
 */
function prepared(c: Context, answer: PreparedJson<unknown>, status: number): Response {
  const headers = { etag: answer.etag, 'cache-control': 'private, no-cache' };
  if (c.req.method === 'GET' && answer.matches(c.req.header('if-none-match')))
    return new Response(null, { status: 304, headers });
  return new Response(answer.bytes, { status, headers: { 'content-type': 'application/json', ...headers } });
}

function parseQuery(spec: EndpointSpec, raw: Record<string, string>): QueryOf<EndpointSpec> {
  const parsed = spec.query?.safeParse(raw);
  if (parsed === undefined) return {};
  // The query's own messages name the parameter and the value given.
  if (!parsed.success)
    throw new InvalidInputError(parsed.error.issues.map((issue) => issue.message).join('; '));
  return parsed.data;
}

function cwdOf(c: Context): string | undefined {
  return c.req.header('x-baton-cwd') ?? c.req.query('cwd');
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError('The request body is not valid JSON.');
  }
}
