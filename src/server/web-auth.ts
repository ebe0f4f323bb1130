/**
 * Browser access without handing the token to the browser. `baton ui` (holding the token) asks
 * for a one-time login code; opening `/login?code=…` swaps it for an HttpOnly, SameSite=Strict
 * cookie carrying a separate random secret. The cookie authenticates pages' API requests; for
 * anything but GET/HEAD the request must also carry our own Origin, so a cross-site form or
 * fetch cannot act with it (CSRF). The bearer token path for the CLI is unchanged.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Context } from 'hono';
import { z } from 'zod';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';

const log = createLogger('web-auth');

/** Long enough to open a browser, short enough that a code in a scrollback is useless. */
export const LOGIN_CODE_TTL_MS = 60_000;
export const COOKIE_MAX_AGE_S = 7 * 24 * 3600;
/** Bounds memory if something keeps asking for codes or logging in. */
const MAX_CODES = 64;
const MAX_SESSIONS = 256;

export interface BrowserAuthOptions {
  port: () => number;
  now?: () => number;
  /**
   * Where logins are kept across supervisor restarts (mode 0600): only sha256 digests of the
   * cookie secrets, with their expiry, so the file grants nothing to whoever reads it. Without
   * it, logins live as long as the process.
   */
  file?: string;
}

/** The kept logins: digest → expiry in ms since the epoch. */
const LoginsFile = z.object({
  v: z.literal(1),
  sessions: z.record(z.string().regex(/^[0-9a-f]{64}$/), z.number()),
});

export class BrowserAuth {
  /** sha256(code) → expiry; only digests are kept, so a heap dump shows no usable code. */
  private readonly codes = new Map<string, number>();
  /** sha256(secret) → expiry. */
  private readonly sessions = new Map<string, number>();
  /** Requests authenticated by the cookie rather than the token, for routes that demand the token. */
  private readonly cookieRequests = new WeakSet<Request>();
  private readonly now: () => number;

  constructor(private readonly options: BrowserAuthOptions) {
    this.now = options.now ?? Date.now;
    this.load();
  }

  /** The cookie's name carries the port: cookies ignore ports, and two supervisors must not clobber each other's. */
  get cookieName(): string {
    return `baton_${this.options.port()}`;
  }

  issueCode(): { code: string; expiresAt: Date } {
    this.prune();
    if (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    const code = randomBytes(24).toString('base64url');
    const expiresAt = this.now() + LOGIN_CODE_TTL_MS;
    this.codes.set(digest(code), expiresAt);
    return { code, expiresAt: new Date(expiresAt) };
  }

  /** Spends a login code; returns the new cookie secret, or undefined for an unknown, used or expired code. */
  redeem(code: string): string | undefined {
    const key = digest(code);
    const expiry = this.codes.get(key);
    this.codes.delete(key);
    if (expiry === undefined || expiry < this.now()) return undefined;
    this.prune();
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    const secret = randomBytes(32).toString('base64url');
    this.sessions.set(digest(secret), this.now() + COOKIE_MAX_AGE_S * 1000);
    this.save();
    return secret;
  }

  setCookieHeader(secret: string): string {
    return `${this.cookieName}=${secret}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${COOKIE_MAX_AGE_S}`;
  }

  /**
   * True when the request carries a live session cookie and, unless it is a safe method, our
   * Origin. The Host and any Origin present were already checked by the app's guard.
   */
  allows(request: Request): boolean {
    const secret = readCookie(request.headers.get('cookie') ?? undefined, this.cookieName);
    if (secret === undefined || !this.isLive(secret)) return false;
    const safe = request.method === 'GET' || request.method === 'HEAD';
    if (!safe && request.headers.get('origin') === null) return false;
    this.cookieRequests.add(request);
    return true;
  }

  /**
   * Whether the request carries a live session cookie: read before its body is, so a body no
   * login could pass is dropped unread (decision 331). Marks nothing; `allows` decides.
   */
  hasLiveCookie(request: Request): boolean {
    const secret = readCookie(request.headers.get('cookie') ?? undefined, this.cookieName);
    return secret !== undefined && this.isLive(secret);
  }

  viaCookie(c: Context): boolean {
    return this.cookieRequests.has(c.req.raw);
  }

  private isLive(secret: string): boolean {
    const key = digest(secret);
    for (const [known, expiry] of this.sessions) {
      if (expiry >= this.now() && equal(known, key)) return true;
    }
    return false;
  }

  /** A missing file is a first start; an unreadable one costs the browsers a new `baton ui`, nothing more. */
  private load(): void {
    const file = this.options.file;
    if (file === undefined) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return;
    }
    try {
      const kept = LoginsFile.parse(JSON.parse(text));
      const now = this.now();
      const live = Object.entries(kept.sessions).filter(([, expiry]) => expiry >= now);
      for (const [key, expiry] of live.slice(-MAX_SESSIONS)) this.sessions.set(key, expiry);
    } catch (error) {
      log.warn('ignoring an unreadable browser-logins file; browsers will need `baton ui` again', {
        file,
        error: errorMessage(error),
      });
    }
  }

  /** Written whole and renamed into place, so a crash mid-write leaves the previous file. */
  private save(): void {
    const file = this.options.file;
    if (file === undefined) return;
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify({ v: 1, sessions: Object.fromEntries(this.sessions) }), {
        mode: 0o600,
      });
      renameSync(temporary, file);
    } catch (error) {
      log.warn('could not keep browser logins; they last until the supervisor stops', {
        file,
        error: errorMessage(error),
      });
    }
  }

  private prune(): void {
    const now = this.now();
    for (const [key, expiry] of this.codes) if (expiry < now) this.codes.delete(key);
    for (const [key, expiry] of this.sessions) if (expiry < now) this.sessions.delete(key);
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
