/**
 * Desktop notifications that reach you: when a session needs input, fails, or the watchdog raises
 * an alert, the system's notifier is run (`notify-send` on Linux, `osascript` on macOS) with an
 * argument array, never a shell string. Each bus event notifies once: its sequence number is
 * claimed in the store first, so neither a repeat nor a supervisor restart sends it twice.
 */
import { execFile } from 'node:child_process';
import type { WorkspaceBus } from '../bus/index.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import { reasonText } from '../events/format.js';
import { createLogger } from '../shared/log.js';
import type { Db } from '../store/db.js';
import { NotifiedStore } from '../store/watchdog.js';

const log = createLogger('notify');

export interface NotifySettings {
  /** Off: no desktop notification at all. */
  desktop: boolean;
  needsInput: boolean;
  failed: boolean;
  alerts: boolean;
}

export const DEFAULT_NOTIFY: NotifySettings = { desktop: true, needsInput: true, failed: true, alerts: true };

export interface Notice {
  title: string;
  body: string;
}

/** The command that shows `notice` on this platform: a program and its arguments. */
export function notifierCommand(
  notice: Notice,
  platform: NodeJS.Platform = process.platform,
): [string, string[]] | undefined {
  if (platform === 'darwin') {
    // The text goes in as arguments of the script, so no quote in it can change the script.
    return [
      'osascript',
      [
        '-e',
        'on run argv',
        '-e',
        'display notification (item 2 of argv) with title (item 1 of argv)',
        '-e',
        'end run',
        notice.title,
        notice.body,
      ],
    ];
  }
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd')
    return ['notify-send', ['--app-name=Baton', '--', notice.title, notice.body]];
  return undefined;
}

/** What a bus event says to a person, or undefined when it is not worth a notification. */
export function noticeFor(event: WorkspaceEvent, settings: NotifySettings): Notice | undefined {
  if (event.type === 'session.state_changed') {
    const { name, to, reason } = event.data;
    if (to === 'needs_input' && settings.needsInput)
      return {
        title: `${name} needs input`,
        body: reason === undefined ? 'waiting for you' : reasonText(reason),
      };
    if (to === 'failed' && settings.failed)
      return {
        title: `${name} failed`,
        body: reason === undefined ? 'the session failed' : reasonText(reason),
      };
    return undefined;
  }
  if (event.type === 'watchdog.alert_raised' && settings.alerts) {
    return {
      title: `Baton: ${event.data.name ?? 'workspace'} — ${event.data.rule.replace(/_/g, ' ')}`,
      body: event.data.message,
    };
  }
  return undefined;
}

/**
 * More notices than this waiting at once are shown as one: a restart that finds fifty sessions
 * waiting for you is one notification, not fifty windows (decision 447).
 */
export const BURST_NOTICES = 3;

/** The notices waiting at one moment, as the notifications to show: each, or one for a burst. */
export function noticesShown(notices: readonly Notice[]): Notice[] {
  if (notices.length <= BURST_NOTICES) return [...notices];
  const listed = notices.slice(0, BURST_NOTICES).map((n) => n.title);
  const more = notices.length - listed.length;
  return [
    {
      title: `Baton: ${notices.length} notices`,
      body: `${listed.join('; ')}; and ${more} more (baton ls)`,
    },
  ];
}

export class DesktopNotifier {
  private readonly store: NotifiedStore;
  private unsubscribe: (() => void) | undefined;
  /** Claimed and not yet shown: shown once the work that published them is done. */
  private pending: Notice[] = [];
  private flushing: NodeJS.Immediate | undefined;

  constructor(
    db: Db,
    private readonly bus: WorkspaceBus,
    private readonly settings: NotifySettings,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.store = new NotifiedStore(db);
  }

  start(): void {
    if (!this.settings.desktop) return;
    this.unsubscribe = this.bus.subscribe((event) => this.onEvent(event));
  }

  close(): void {
    this.unsubscribe?.();
    if (this.flushing !== undefined) clearImmediate(this.flushing);
    this.flushing = undefined;
    this.pending = [];
  }

  private onEvent(event: WorkspaceEvent): void {
    const notice = noticeFor(event, this.settings);
    if (notice === undefined) return;
    if (!this.store.claim(event.seq, this.clock().toISOString())) return;
    if (notifierCommand(notice) === undefined) return;
    // Starting a program forks this process (tens of ms each on a busy machine): not inside the
    // work that published the event (a restart's ingestion), and once for a burst (decision 447).
    this.pending.push(notice);
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    const notices = this.pending;
    this.pending = [];
    for (const notice of noticesShown(notices)) {
      const [program, args] = notifierCommand(notice)!;
      execFile(program, args, { env: this.env, timeout: 10_000 }, (error) => {
        // A machine without a notifier (a server, a container) is normal: said once in the log, not an error.
        if (error !== null) log.info('desktop notification not shown', { program, error: error.message });
      });
    }
  }
}
