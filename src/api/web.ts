/**
 * Shapes of the endpoints the web UI added to the API (inbox, transcript pages, usage, login
 * codes, the board's stream). Schemas, not only types, so the OpenAPI document is generated from
 * the same source the server and the UI are typed by.
 */
import { z } from 'zod';
import { BatonEvent } from '../events/index.js';
import { SessionView } from './index.js';

export const InboxItem = z.object({
  session: SessionView,
  /** The last few events before the question or approval, oldest first. */
  context: z.array(BatonEvent),
});
export type InboxItem = { session: SessionView; context: BatonEvent[] };

export const InboxView = z.object({ items: z.array(InboxItem) });
export type InboxView = { items: InboxItem[] };

export const TranscriptPage = z.object({
  events: z.array(BatonEvent),
  /** True when older events exist; ask again with `before` = the first event's seq. */
  hasMore: z.boolean(),
  lastSeq: z.number().int(),
});
export type TranscriptPage = { events: BatonEvent[]; hasMore: boolean; lastSeq: number };

export const UsagePoint = z.object({
  seq: z.number().int(),
  ts: z.string(),
  /** Running totals after this report. */
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});
export type UsagePoint = z.infer<typeof UsagePoint>;
export const UsageView = z.object({ points: z.array(UsagePoint) });
export type UsageView = z.infer<typeof UsageView>;

export const LoginCodeView = z.object({
  /** Open this once in a browser; the code is single-use and short-lived. */
  url: z.string(),
  expiresAt: z.string(),
});
export type LoginCodeView = z.infer<typeof LoginCodeView>;

/**
 * Messages of `GET /api/stream` (SSE): first one `snapshot` with every live session, then a
 * `session` for each change and a `removed` when a session is removed.
 */
export const StreamSnapshot = z.object({
  sessions: z.array(SessionView),
  /**
   * Files changed per session id, as last measured (a session not measured yet is absent): the
   * board's cards show real counts from the first paint, before `GET /api/changes` answers.
   */
  files: z.record(z.string(), z.number().int()).optional(),
});
export type StreamSnapshot = z.infer<typeof StreamSnapshot>;
export const StreamRemoved = z.object({ id: z.string() });
export type StreamRemoved = z.infer<typeof StreamRemoved>;

/** Transcript pages are bounded so a session with a long history opens as fast as a short one. */
export const TRANSCRIPT_PAGE_DEFAULT = 300;
export const TRANSCRIPT_PAGE_MAX = 2_000;

/**
 * What the dashboard's server-render bundle (`web/src/render.tsx`, built by `npm run build:web`)
 * exports. The supervisor loads it at run time rather than importing UI code, and hands it the
 * same snapshot it embeds in the page, so the server's markup and the client's first render
 * (hydration) come from one set of components and one set of data.
 */
export interface PageRenderer {
  /**
   * The page's markup for `path`, or undefined when that page is left to the client. The board
   * shows a first screen of cards unless `showAll` (the page's `?all=1`) asks for every one.
   */
  renderPage(path: string, snapshot: StreamSnapshot, options?: { showAll?: boolean }): string | undefined;
}
