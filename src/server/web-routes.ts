/**
 * The API routes the web UI needs beyond the CLI's: login codes and the login itself, the inbox,
 * bounded transcript pages, usage over time, the worktree diff and the OpenAPI document. Mounted
 * by `mountWeb` after the app's own routes, behind the same guard.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { TRANSCRIPT_PAGE_DEFAULT, TRANSCRIPT_PAGE_MAX, type InboxItem, type InboxView, type LoginCodeView, type TranscriptPage, type UsagePoint, type UsageView } from '../api/web.js';
import type { ApiErrorBody } from '../api/index.js';
import type { BatonEvent } from '../events/index.js';
import { BatonError, InvalidInputError, formatIssues } from '../shared/errors.js';
import type { SessionManager } from '../sessions/manager.js';
import { worktreeDiff } from '../worktrees/diff.js';
import { openApiDocument } from './openapi.js';
import { ChangeCounts } from './web-changes.js';
import type { BrowserAuth } from './web-auth.js';
import { PageBuilder } from './web-page.js';
import { boardSnapshot, serveBoardStream } from './web-stream.js';
import { serveStatic } from './web-static.js';

export interface WebOptions {
  manager: SessionManager;
  auth: BrowserAuth;
  port: () => number;
}

/** Events worth showing next to a question: what the agent said and did, not bookkeeping. */
const CONTEXT_TYPES = ['message.added', 'thinking.added', 'tool.started', 'tool.finished', 'error.raised', 'question.asked', 'approval.requested'];
const INBOX_CONTEXT = 6;
const USAGE_POINTS = 500;

/** Registers the web routes; must come after every other route since it ends with the static catch-all. */
export function mountWeb(app: Hono, options: WebOptions): void {
  const { manager, auth } = options;

  app.post('/api/ui/login', (c) => {
    // A page already logged in must not mint codes for others: only the token holder may.
    if (auth.viaCookie(c)) return c.json<ApiErrorBody>({ error: { code: 'forbidden', message: 'Login codes need the token; run `baton ui`.' } }, 403);
    const { code, expiresAt } = auth.issueCode();
    const view: LoginCodeView = { url: `http://127.0.0.1:${options.port()}/login?code=${code}`, expiresAt: expiresAt.toISOString() };
    return c.json(view, 201);
  });

  app.get('/login', (c) => {
    noStore(c);
    const secret = auth.redeem(c.req.query('code') ?? '');
    if (secret === undefined) {
      return c.html(loginFailedPage(), 401);
    }
    c.header('set-cookie', auth.setCookieHeader(secret));
    return c.redirect('/', 303);
  });

  app.get('/api/stream', (c) => serveBoardStream(c, manager));

  app.get('/api/inbox', (c) => {
    const items: InboxItem[] = manager
      .list()
      .filter((s) => s.state === 'needs_input')
      .map((s) => ({ session: manager.view(s), context: manager.latestEvents(s.id, CONTEXT_TYPES, INBOX_CONTEXT).reverse() }));
    return c.json<InboxView>({ items });
  });

  const changes = new ChangeCounts(manager);
  app.get('/api/changes', async (c) => c.json({ counts: await changes.all() }));

  app.get('/api/sessions/:ref/transcript', (c) => {
    const session = manager.resolve(c.req.param('ref'));
    const limit = intParam(c.req.query('limit'), 'limit', TRANSCRIPT_PAGE_DEFAULT, 1, TRANSCRIPT_PAGE_MAX);
    const before = intParam(c.req.query('before'), 'before', session.last_seq + 1, 1, Number.MAX_SAFE_INTEGER);
    // Sequence numbers are dense per session, so the page is a seq range read off the primary key.
    const after = Math.max(0, before - 1 - limit);
    const events = manager.eventsAfter(session.id, after, before - 1 - after);
    return c.json<TranscriptPage>({ events, hasMore: after > 0, lastSeq: session.last_seq });
  });

  app.get('/api/sessions/:ref/usage', (c) => {
    const session = manager.resolve(c.req.param('ref'));
    const reports = manager.latestEvents(session.id, ['usage.reported'], USAGE_POINTS);
    return c.json<UsageView>({ points: runningTotals(reports, session) });
  });

  app.get('/api/sessions/:ref/diff', async (c) => {
    const session = manager.resolve(c.req.param('ref'));
    const diff = await worktreeDiff(session.worktree, session.base_commit);
    c.header('x-baton-diff-truncated', diff.truncated ? '1' : '0');
    c.header('content-type', 'text/x-diff; charset=utf-8');
    return c.body(diff.text);
  });

  let openApi: object | undefined;
  app.get('/api/openapi.json', (c) => c.json((openApi ??= openApiDocument())));

  // Without JavaScript the Approve, Deny and Send buttons are plain form posts to here; with it,
  // the page calls the API and never submits. Same cookie and Origin rule as the API.
  app.post('/s/:ref/respond', async (c) => {
    if (!auth.allows(c.req.raw)) return c.html(messagePage('Not logged in', 'Run <code>baton ui</code> to open the dashboard logged in.'), 403);
    const back = backTo(c);
    try {
      const form = RespondForm.safeParse(await c.req.parseBody());
      if (!form.success) throw new InvalidInputError(`Invalid form: ${formatIssues(form.error.issues)}`);
      const session = manager.resolve(c.req.param('ref'));
      const { action, text, requestId } = form.data;
      if (action === 'reply') await manager.reply(session.id, text ?? '');
      else await manager.resolveApproval(session.id, action === 'approve' ? 'allow' : 'deny', text?.trim() || undefined, requestId);
      return c.redirect(back, 303);
    } catch (error) {
      if (!(error instanceof BatonError)) throw error;
      return c.html(messagePage('That did not go through', `${escapeHtml(error.message)}</p><p><a href="${escapeHtml(back)}">Back</a>`), error.httpStatus as 400);
    }
  });

  // A logged-in browser gets the board in the HTML itself; anyone else gets the bare shell.
  const pages = new PageBuilder(() => boardSnapshot(manager));
  pages.warm();
  manager.on('session', () => pages.invalidate());
  serveStatic(app, (c, template) => (auth.allows(c.req.raw) ? pages.build(template, c.req.path, c.req.query('all') !== undefined) : template));
}

/** Usage reports come newest first; the session row holds the totals, so walk back from them. */
function runningTotals(newestFirst: BatonEvent[], totals: { input_tokens: number; output_tokens: number; cost_usd: number }): UsagePoint[] {
  let input = totals.input_tokens;
  let output = totals.output_tokens;
  let cost = totals.cost_usd;
  const points: UsagePoint[] = [];
  for (const event of newestFirst) {
    if (event.type !== 'usage.reported') continue;
    points.push({ seq: event.seq, ts: event.ts, inputTokens: input, outputTokens: output, costUsd: Math.max(0, cost) });
    input -= event.inputTokens;
    output -= event.outputTokens;
    cost -= event.costUsd ?? 0;
  }
  return points.reverse();
}

function intParam(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidInputError(`"${name}" must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}

function noStore(c: Context): void {
  c.header('cache-control', 'no-store');
  // The code is in the URL; do not hand it on to anything the page links to.
  c.header('referrer-policy', 'no-referrer');
}

function loginFailedPage(): string {
  return messagePage('This login link was already used or has expired.', 'Login links work once, for a minute. Run <code>baton ui</code> again to get a fresh one.');
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
