/**
 * Notification channels beyond the desktop (decision 153, "Needs-you reaches the user: the
 * terminal, a webhook, an ntfy topic; review capacity throttles dispatch"): a webhook (a JSON
 * POST) and an ntfy topic (its plain-text publish, with a title, tags and a click-through link),
 * for a session that needs input, one that failed, and budget alerts, each with a link to the
 * session's page. The URLs are the user's own (`notifications.webhook` / `notifications.ntfy` in
 * Baton's config.json, which no agent can write), so a loopback address — a self-hosted ntfy on
 * this machine — is as good as any. A call an allow rule answers never reaches them: its session
 * never needs input (decision 152). Each message is tried once, with a timeout; a channel that
 * fails is logged, never retried in a loop, and never holds the supervisor up.
 */
import type { WorkspaceBus } from '../bus/index.js';
import { reasonText } from '../events/format.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';

const log = createLogger('notify');
const TIMEOUT_MS = 10_000;
const BUDGET_RULES = new Set(['budget', 'budget_warning', 'window']);

export interface ChannelSettings {
  webhook?: string | undefined;
  ntfy?: string | undefined;
  needsInput: boolean;
  failed: boolean;
  alerts: boolean;
}

/** What a webhook receives (JSON). */
export interface ChannelMessage {
  kind: 'needs_input' | 'failed' | 'budget';
  title: string;
  message: string;
  session: { id: string; name: string; project: string } | null;
  /** The session's page (or the cost page for a workspace budget), on this machine's dashboard. */
  url: string | null;
  at: string;
}

/** The message for a bus event, or undefined when it is not one the channels carry. */
export function channelMessage(
  event: WorkspaceEvent,
  settings: ChannelSettings,
  dashboard: string | undefined,
): ChannelMessage | undefined {
  const page = (path: string): string | null => (dashboard === undefined ? null : `${dashboard}${path}`);
  if (event.type === 'session.state_changed') {
    const { sessionId, name, project, to, reason } = event.data;
    const kind =
      to === 'needs_input' && settings.needsInput
        ? 'needs_input'
        : to === 'failed' && settings.failed
          ? 'failed'
          : undefined;
    if (kind === undefined) return undefined;
    return {
      kind,
      title: `${name} ${kind === 'failed' ? 'failed' : 'needs input'}`,
      message:
        reason === undefined
          ? kind === 'failed'
            ? 'the session failed'
            : 'waiting for you'
          : reasonText(reason),
      session: { id: sessionId, name, project },
      url: page(`/s/${encodeURIComponent(sessionId)}`),
      at: event.ts,
    };
  }
  if (event.type === 'watchdog.alert_raised' && settings.alerts && BUDGET_RULES.has(event.data.rule)) {
    const { sessionId, name, project, message } = event.data;
    return {
      kind: 'budget',
      title: `Baton: ${name ?? 'workspace'} — ${event.data.rule.replace(/_/g, ' ')}`,
      message,
      session: sessionId === null ? null : { id: sessionId, name: name ?? sessionId, project: project ?? '' },
      url: sessionId === null ? page('/cost') : page(`/s/${encodeURIComponent(sessionId)}`),
      at: event.ts,
    };
  }
  return undefined;
}

export class NotificationChannels {
  private unsubscribe: (() => void) | undefined;
  /** Bus sequences already sent: a replayed event is not sent twice. */
  private readonly sent = new Set<number>();

  constructor(
    private readonly bus: WorkspaceBus,
    private readonly settings: ChannelSettings,
    /** This machine's dashboard (`http://127.0.0.1:<port>`), once it listens. */
    private readonly dashboard: () => string | undefined,
    private readonly post: typeof fetch = fetch,
  ) {}

  start(): void {
    if (this.settings.webhook === undefined && this.settings.ntfy === undefined) return;
    this.unsubscribe = this.bus.subscribe((event) => this.onEvent(event));
  }

  close(): void {
    this.unsubscribe?.();
  }

  private onEvent(event: WorkspaceEvent): void {
    const message = channelMessage(event, this.settings, this.dashboard());
    if (message === undefined || this.sent.has(event.seq)) return;
    this.sent.add(event.seq);
    if (this.sent.size > 10_000) this.sent.clear();
    const { webhook, ntfy } = this.settings;
    if (webhook !== undefined)
      this.send('webhook', webhook, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
      });
    if (ntfy !== undefined)
      this.send('ntfy', ntfy, {
        method: 'POST',
        headers: {
          // ntfy reads these headers; HTTP headers carry Latin-1 only, so the title is made safe for them.
          Title: headerSafe(message.title),
          Tags: message.kind === 'failed' ? 'x' : message.kind === 'budget' ? 'moneybag' : 'bell',
          Priority: message.kind === 'needs_input' ? 'high' : 'default',
          ...(message.url === null ? {} : { Click: message.url }),
        },
        body: message.url === null ? message.message : `${message.message}\n${message.url}`,
      });
  }

  private send(channel: string, url: string, init: RequestInit): void {
    this.post(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' })
      .then((response) => {
        if (!response.ok)
          log.warn('a notification channel refused a message', { channel, status: response.status });
        return response.body?.cancel();
      })
      .catch((error: unknown) =>
        log.warn('a notification channel could not be reached', { channel, error: errorMessage(error) }),
      );
  }
}

function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '-').slice(0, 200);
}
