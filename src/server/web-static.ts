/**
 * Serves the built web UI (`web/dist`). Hashed assets are cached for good; every other path
 * that is not a file gets `index.html`, so the UI's own routes survive a reload. The files are
 * public (no secrets in them); the API they call is not, and neither is the page `page` makes
 * of index.html for a logged-in browser (it embeds the sessions).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Hono } from 'hono';

/** From src/server or dist/server alike, the built UI is two folders up. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** Inline styles are allowed because the diff viewer and React set style attributes. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Turns index.html into the page for this request; returns it unchanged for a browser not logged in. */
export type PageHook = (c: Context, template: string) => string | Promise<string>;

/** The server-render bundle sits in web/dist too, but it is the supervisor's, not the browser's. */
const SERVER_ONLY = join(WEB_DIST, 'ssr') + sep;

export function serveStatic(app: Hono, page: PageHook = (_c, template) => template): void {
  const assets = new Map<string, Buffer>();
  app.get('*', async (c) => {
    const path = c.req.path;
    if (path.startsWith('/api/')) return c.notFound();
    securityHeaders(c);
    const file = resolveFile(path);
    if (file !== undefined && path.startsWith('/assets/')) {
      let body = assets.get(file);
      if (body === undefined) assets.set(file, (body = readFileSync(file)));
      c.header('cache-control', 'public, max-age=31536000, immutable');
      return send(c, body, file);
    }
    if (file !== undefined) return send(c, readFileSync(file), file);
    const index = join(WEB_DIST, 'index.html');
    if (!existsSync(index)) return c.html(NOT_BUILT, 503);
    const template = readFileSync(index, 'utf8');
    const html = await page(c, template);
    // A logged-in page carries session data: keep it out of caches; the bare shell may be revalidated.
    c.header('cache-control', html === template ? 'no-cache' : 'no-store');
    return c.html(html);
  });
}

function resolveFile(urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const file = normalize(join(WEB_DIST, decoded));
  if (
    !file.startsWith(WEB_DIST) ||
    file.endsWith(sep) ||
    file.startsWith(SERVER_ONLY) ||
    decoded.includes('\0')
  )
    return undefined;
  if (!existsSync(file) || !statSync(file).isFile()) return undefined;
  return file;
}

function send(c: Context, body: Buffer, file: string): Response {
  c.header('content-type', TYPES[extname(file)] ?? 'application/octet-stream');
  return c.body(new Uint8Array(body));
}

function securityHeaders(c: Context): void {
  c.header('content-security-policy', CSP);
  c.header('x-content-type-options', 'nosniff');
  // same-origin rather than no-referrer: nothing goes to other sites either way, but the page's own
  // form posts must carry its Origin, which no-referrer turns into "null".
  c.header('referrer-policy', 'same-origin');
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Baton</title>
<body style="font:15px system-ui;margin:4rem auto;max-width:36rem"><h1 style="font-size:1.3rem">The web UI is not built.</h1>
<p>Run <code>npm run build</code> in the Baton checkout, then reload.</p></body>`;
