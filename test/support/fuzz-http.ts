/**
 * Generated HTTP requests for every endpoint of the tables (`TABLES`): good and bad path
 * parameters, query strings and bodies walked from each endpoint's zod schemas, sent raw (any
 * bytes, any headers) so that nothing a real client library would tidy up is left out.
 */
import { Agent, request } from 'node:http';
import type { z } from 'zod';
import type { EndpointSpec } from '../../src/api/endpoint.js';
import { deepJson, fieldsOf, isOptional, validValue, wrongType, type Rng } from './fuzz.js';

export interface HttpCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** Sent without a Content-Length, in two chunks. */
  chunked?: boolean;
  /** What the case tries, for the failure message. */
  label: string;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface HttpFuzzContext {
  rng: Rng;
  port: number;
  token: string;
  /** Refs of real sessions (id, prefix, name), so the handlers behind the lookup are reached too. */
  refs: string[];
  strings: string[];
  /** The test repository: a dispatch body whose `cwd` is it is made invalid unless it is one of the few valid ones. */
  repo: string;
}

/** Routes never sent with the token: it would end the run (the stop itself is tested elsewhere). */
const NEVER_WITH_TOKEN = new Set(['POST /api/daemon/stop']);

export function httpCase(ctx: HttpFuzzContext, route: string, spec: EndpointSpec): HttpCase {
  const { rng } = ctx;
  const [method, pattern] = route.split(' ') as [string, string];
  const labels: string[] = [];
  const headers: Record<string, string> = {
    host: `127.0.0.1:${ctx.port}`,
    authorization: `Bearer ${ctx.token}`,
  };

  // Authentication and the host checks, now and then.
  const auth = rng.next();
  if (NEVER_WITH_TOKEN.has(route) || auth < 0.03) {
    delete headers.authorization;
    labels.push('no token');
  } else if (auth < 0.05) {
    headers.authorization = rng.pick([
      `Bearer ${ctx.token}x`,
      'Bearer ',
      `Basic ${ctx.token}`,
      `Bearer ${'\u00e9'.repeat(10)}`,
    ]);
    labels.push('bad token');
  } else if (auth < 0.06) {
    headers.host = rng.pick(['evil.example:80', '', `127.0.0.1:${ctx.port + 1}`]);
    labels.push('bad host');
  } else if (auth < 0.07) {
    headers.origin = rng.pick(['http://evil.example', 'null', `http://127.0.0.1:${ctx.port}.evil`]);
    labels.push('bad origin');
  }

  const path = pattern.replace(/:(\w+)/g, () => {
    const ref = paramValue(ctx);
    labels.push(`ref ${JSON.stringify(ref.slice(0, 40))}`);
    return ref;
  });
  const query = queryString(ctx, spec);
  if (query !== '') labels.push(`query ${JSON.stringify(query.slice(0, 60))}`);

  // Now and then the wrong method on a real path.
  let sentMethod = method;
  if (rng.chance(0.03)) {
    sentMethod = rng.pick(['PUT', 'PATCH', 'HEAD', 'OPTIONS', method === 'GET' ? 'POST' : 'GET']);
    labels.push(`method ${sentMethod}`);
  }

  const out: HttpCase = { method: sentMethod, path: path + query, headers, label: '' };
  if (spec.body !== undefined || rng.chance(0.05)) {
    const body = bodyFor(ctx, route, spec.body, labels);
    out.body = body.text;
    if (body.contentType !== undefined) headers['content-type'] = body.contentType;
    if (rng.chance(0.1)) {
      out.chunked = true;
      labels.push('chunked');
    }
  }
  out.label = `${sentMethod} ${pattern}: ${labels.join(', ')}`;
  return out;
}

/**
 * A request to the web UI's own routes (the page, its login, its assets), which are outside the
 * tables: odd paths, traversal in every spelling, odd login codes.
 */
export function webCase(ctx: HttpFuzzContext): HttpCase {
  const { rng } = ctx;
  const odd = encode(rng.pick(ctx.strings));
  const path = rng.pick([
    '/',
    `/?all=${odd}`,
    `/login?code=${odd}`,
    '/login',
    `/assets/${odd}`,
    '/assets/..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
    '/assets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    '/..%2f..%2f..%2f..%2f..%2fetc/passwd',
    '/ssr/entry-server.js',
    '/%00',
    '/%ZZ',
    `/sessions/${rng.pick(ctx.refs.length > 0 ? ctx.refs : ['x'])}`,
    `/${'a/'.repeat(500)}`,
    '//etc/passwd',
  ]);
  const headers: Record<string, string> = { host: `127.0.0.1:${ctx.port}` };
  if (rng.chance(0.3))
    headers.cookie = rng.pick([`baton_${ctx.port}=${odd}`, 'baton_1=x', `${'a'.repeat(4000)}=1`]);
  return {
    method: rng.pick(['GET', 'GET', 'GET', 'POST', 'HEAD']),
    path,
    headers,
    label: `web ${path.slice(0, 80)}`,
  };
}

function paramValue(ctx: HttpFuzzContext): string {
  const { rng } = ctx;
  const roll = rng.next();
  if (roll < 0.45 && ctx.refs.length > 0) return encode(rng.pick(ctx.refs));
  if (roll < 0.85) return encode(rng.pick(ctx.strings)) || 'x';
  // Raw, not encoded: what a careless client sends.
  return rng.pick([
    '%ZZ',
    '%',
    '%E0%A4%A',
    '..%2F..%2Fetc',
    '%00',
    '%2F',
    'a%20b',
    '%F0%9F%99%82',
    'x'.repeat(20_000),
    '%C0%AF',
    '%uD800',
  ]);
}

/** Percent-encoded; a lone surrogate (which has no UTF-8) goes as the bytes a careless encoder would send. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

function queryString(ctx: HttpFuzzContext, spec: EndpointSpec): string {
  const { rng } = ctx;
  const keys = Object.keys(spec.query?.shape ?? {});
  const parts: string[] = [];
  for (const key of keys) {
    if (!rng.chance(0.6)) continue;
    const value = rng.pick([
      '0',
      '1',
      '5',
      '-1',
      '1.5',
      '1e3',
      'abc',
      '',
      '9007199254740993',
      '99999999999999999999999',
      'NaN',
      'Infinity',
      '0x10',
      ' 1',
      '%ZZ',
      'false',
      'true',
      '🙂',
    ]);
    parts.push(`${key}=${value.startsWith('%') ? value : encodeURIComponent(value)}`);
    if (rng.chance(0.1)) parts.push(`${key}=2`);
  }
  if (rng.chance(0.1))
    parts.push(rng.pick(['unknown=1', '%ZZ=1', 'a[b]=c', '&&&', '=', 'x'.repeat(5_000), '__proto__=1']));
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

interface Body {
  text: string | Buffer;
  contentType?: string;
}

function bodyFor(ctx: HttpFuzzContext, route: string, schema: z.ZodType | undefined, labels: string[]): Body {
  const { rng } = ctx;
  const json = (value: unknown): Body => ({
    text: JSON.stringify(value),
    contentType: rng.chance(0.9)
      ? 'application/json'
      : rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']),
  });
  const roll = rng.next();
  if (schema === undefined || roll < 0.15) {
    const raw = rng.pick<[string, Body]>([
      ['empty', { text: '' }],
      ['not JSON', { text: '{"a": 1', contentType: 'application/json' }],
      ['null', { text: 'null', contentType: 'application/json' }],
      ['array', { text: '[1,2]', contentType: 'application/json' }],
      ['string', { text: '"x"', contentType: 'application/json' }],
      ['number', { text: '1e309', contentType: 'application/json' }],
      [
        'bad UTF-8',
        { text: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d]), contentType: 'application/json' },
      ],
      ['BOM', { text: '\ufeff{}', contentType: 'application/json' }],
      ['deep array', { text: deepJson(100_000, '[', ']'), contentType: 'application/json' }],
      ['form', { text: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' }],
      ['NUL bytes', { text: '\u0000\u0000', contentType: 'application/json' }],
    ]);
    labels.push(`body ${raw[0]}`);
    return raw[1];
  }
  const value = validValue(schema, rng, ctx.strings) as Record<string, unknown>;
  const fields = fieldsOf(schema);
  const names = Object.keys(fields);
  const mutation = rng.int(0, 9);
  if (mutation <= 1) {
    labels.push('body valid-shaped');
  } else if (mutation === 2 && names.length > 0) {
    const name = rng.pick(names);
    value[name] = wrongType(fields[name] as z.ZodType, rng);
    labels.push(`${name} wrong type`);
  } else if (mutation === 3) {
    const required = names.filter((n) => !isOptional(fields[n] as z.ZodType));
    const name = required.length > 0 ? rng.pick(required) : undefined;
    if (name !== undefined) delete value[name];
    labels.push(`${name ?? 'nothing'} missing`);
  } else if (mutation === 4) {
    const key = rng.pick(['extra', '__proto__', 'constructor', '', 'x'.repeat(1000), '🙂']);
    labels.push(`extra key ${JSON.stringify(key.slice(0, 20))}`);
    return json({ ...value, [key]: anyValue(rng) });
  } else if (mutation === 5 && names.length > 0) {
    const name = rng.pick(names);
    // Bytes: over the field's limit, near the body's limit, and over it (413).
    const size = rng.pick([100_001, 1_040_000, 1_100_000]);
    const unit = rng.pick(['x', 'é', '🙂']);
    value[name] = unit.repeat(Math.ceil(size / Buffer.byteLength(unit)));
    labels.push(`${name} huge (${size} bytes)`);
  } else if (mutation === 6 && names.length > 0) {
    // Deep nesting inside a field, as text.
    const name = rng.pick(names);
    const rest = { ...value };
    delete rest[name];
    const prefix = JSON.stringify(rest).slice(0, -1);
    labels.push(`${name} nested deep`);
    return {
      text: `${prefix}${prefix.length > 1 ? ',' : ''}"${name}":${deepJson(rng.pick([100, 5_000, 50_000]))}}`,
      contentType: 'application/json',
    };
  } else if (mutation === 7 && names.length > 0) {
    const name = rng.pick(names);
    value[name] = rng.pick(ctx.strings);
    labels.push(`${name} odd string`);
  } else if (mutation === 8 && names.length > 0) {
    const name = rng.pick(names);
    value[name] = rng.pick([-1, -(2 ** 63), 2 ** 64, 1.5, 0, Number.MAX_SAFE_INTEGER + 2]);
    labels.push(`${name} odd number`);
  } else {
    labels.push('body valid-shaped, odd strings');
    for (const name of names)
      if (typeof value[name] === 'string' && rng.chance(0.5)) value[name] = rng.pick(ctx.strings);
  }
  // Only the few deliberate dispatches may start a session: one that could be valid here is made invalid.
  if (route === 'POST /api/sessions' && typeof value === 'object' && value !== null && value.cwd === ctx.repo)
    value.fuzz = true;
  return json(value);
}

function anyValue(rng: Rng): unknown {
  return rng.pick([null, 1, 'x', [], {}, { a: [1] }]);
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/**
 * Sends one case; an event stream is hung up on once its headers arrive (that is a client going
 * away, too). A kept-alive connection the server closed just as it was reused is the one error
 * retried, on a new connection, as Node's documentation advises (`request.reusedSocket`).
 */
export async function send(port: number, c: HttpCase, timeoutMs = 30_000): Promise<HttpAnswer> {
  try {
    return await sendOnce(port, c, timeoutMs, true);
  } catch (error) {
    if ((error as { reused?: boolean }).reused !== true) throw error;
    return sendOnce(port, c, timeoutMs, false);
  }
}

function sendOnce(port: number, c: HttpCase, timeoutMs: number, keepAlive: boolean): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...c.headers };
    // Chunked said out loud: Node frames a GET's body only when told, and unframed bytes are no request at all.
    if (c.body !== undefined)
      headers[c.chunked === true ? 'transfer-encoding' : 'content-length'] =
        c.chunked === true ? 'chunked' : String(Buffer.byteLength(c.body));
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: c.method,
        path: c.path,
        headers,
        agent: keepAlive ? agent : false,
        setHost: false,
      },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        if (contentType.startsWith('text/event-stream')) {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, contentType, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        Object.assign(error, {
          reused: req.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up'),
        }),
      );
    });
    if (c.body === undefined) req.end();
    else if (c.chunked) {
      const half = Math.floor(c.body.length / 2);
      req.write(c.body.slice(0, half));
      req.end(c.body.slice(half));
    } else req.end(c.body);
  });
}

export function closeAgent(): void {
  agent.destroy();
}
