/**
 * What only a browser needs: the dashboard's API table (src/api/ui.ts), the login itself, the
 * no-JavaScript answer form and the pages. Mounted by `mountWeb` after the app's own routes,
 * behind the same guard.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { UI } from '../api/ui.js';
import { BatonError, InvalidInputError, formatIssues } from '../shared/errors.js';
import type { SessionManager } from '../sessions/index.js';
import { mount } from './routes/mount.js';
import { uiHandlers } from './routes/ui.js';
import type { BrowserAuth } from './web-auth.js';
import { PageBuilder } from './web-page.js';
import { boardSnapshot } from './web-stream.js';
import type { PeerSessions } from '../cluster/index.js';
import { serveStatic } from './web-static.js';

export interface WebOptions {
  manager: SessionManager;
  auth: BrowserAuth;
  port: () => number;
  /**
   * The other machines' sessions when the workspace is shared (decision 127, "A shared workspace in the
   * supervisor").
   */
  peers?: PeerSessions;
}

/** Registers the web routes; must come after every other route since it ends with the static catch-all. */
export function mountWeb(app: Hono, options: WebOptions): void {
  const { manager, auth } = options;

  mount(app, UI, uiHandlers(options));

  app.get('/login', (c) => {
    noStore(c);
    const secret = auth.redeem(c.req.query('code') ?? '');
    if (secret === undefined) {
      return c.html(loginFailedPage(), 401);
    }
    c.header('set-cookie', auth.setCookieHeader(secret));
    // `baton review 2 --open` lands on the group's page; only a path on this site is followed.
    // Plain path characters only: no other site (`//host`, `/\\host`), no header tricks.
    const next = c.req.query('next') ?? '/';
    return c.redirect(/^\/(?![/\\])[\w\-./%]*$/.test(next) ? next : '/', 303);
  });

  // Without JavaScript the Approve, Deny and Send buttons are plain form posts to here; with it,
  // the page calls the API and never submits. Same cookie and Origin rule as the API.
  app.post('/s/:ref/respond', async (c) => {
    if (!auth.allows(c.req.raw))
      return c.html(
        messagePage('Not logged in', 'Run <code>baton ui</code> to open the dashboard logged in.'),
        403,
      );
    const back = backTo(c);
    try {
      const form = RespondForm.safeParse(await c.req.parseBody());
      if (!form.success) throw new InvalidInputError(`Invalid form: ${formatIssues(form.error.issues)}`);
      const session = manager.resolve(c.req.param('ref'));
      const { action, text, requestId } = form.data;
      if (action === 'reply') await manager.reply(session.id, text ?? '');
      else
        await manager.resolveApproval(
          session.id,
          action === 'approve' ? 'allow' : 'deny',
          text?.trim() || undefined,
          requestId,
        );
      return c.redirect(back, 303);
    } catch (error) {
      if (!(error instanceof BatonError)) throw error;
      return c.html(
        messagePage(
          'That did not go through',
          `${escapeHtml(error.message)}</p><p><a href="${escapeHtml(back)}">Back</a>`,
        ),
        error.httpStatus as 400,
      );
    }
  });

  // A logged-in browser gets the board in the HTML itself; anyone else gets the bare shell.
  const pages = new PageBuilder(() => boardSnapshot(manager, options.peers));
  pages.warm();
  manager.on('session', () => pages.invalidate());
  serveStatic(app, (c, template) =>
    auth.allows(c.req.raw) ? pages.build(template, c.req.path, c.req.query('all') !== undefined) : template,
  );
}

function noStore(c: Context): void {
  c.header('cache-control', 'no-store');
  // The code is in the URL; do not hand it on to anything the page links to.
  c.header('referrer-policy', 'no-referrer');
}

function loginFailedPage(): string {
  return messagePage(
    'This login link was already used or has expired.',
    'Login links work once, for a minute. Run <code>baton ui</code> again to get a fresh one.',
  );
}

/** A bare page for the few answers that are not the app: `title` is text, `html` is trusted markup. */
function messagePage(title: string, html: string): string {
  return `<!doctype html><meta charset="utf-8"><title>Baton — ${escapeHtml(title)}</title>
<body style="font:15px system-ui;margin:4rem auto;max-width:36rem;color:#1c2230">
<h1 style="font-size:1.3rem">${escapeHtml(title)}</h1>
<p>${html}</p></body>`;
}

const RespondForm = z.object({
  action: z.enum(['approve', 'deny', 'reply']),
  /** The reply, or the reason for a denial. */
  text: z.string().max(100_000).optional(),
  requestId: z.string().max(200).optional(),
});

/** Where a form post returns: the page it came from (same origin, by the guard), else the board. */
function backTo(c: Context): string {
  const referer = c.req.header('referer');
  if (referer === undefined) return '/';
  try {
    const url = new URL(referer);
    // A path starting with two slashes (or a slash and a backslash) is scheme-relative and would leave the site.
    const path = url.pathname + url.search;
    return url.host === c.req.header('host') && /^\/(?![/\\])/.test(path) ? path : '/';
  } catch {
    return '/';
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
