/**
 * The idle rule: a session whose host is up, ready for review and unused for its repository's
 * `watchdog.idle` time has its host let go, keeping its state (a reply resumes the conversation
 * in a new host). Housekeeping, not news: no alert is raised.
 *
 * Timed by a monotonic clock from the moment this watchdog saw the session come to rest, never by
 * event timestamps: a wall clock that jumps must not let a host go early or hours late, and a
 * restarted supervisor starts every session's clock again, so it never lets go one that was in
 * use while it was away. The host has the last word: it refuses while a request is being answered
 * or the session is no longer resting, and the clock then starts again.
 */
import type { BatonEvent } from '../events/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { formatDuration } from '../usage/index.js';

const log = createLogger('watchdog');

/** What the rule reads of a session. */
export interface IdleCandidate {
  id: string;
  state: string;
  host_pid: number | null;
}

/** A live session and its repository's limit (undefined: its agent is kept). */
export interface IdleCheck {
  session: IdleCandidate;
  limitMs: number | undefined;
}

/** Asks the session's host to let its agent go; false when it did not (in use, or no host). */
export type ReleaseHost = (sessionId: string, message: string) => Promise<boolean>;

export class IdleHosts {
  /** When (monotonic ms) each resting session was first seen at rest. */
  private readonly restingSince = new Map<string, number>();
  private readonly releasing = new Map<string, Promise<void>>();

  constructor(
    private readonly now: () => number,
    private readonly release: ReleaseHost,
  ) {}

  /** A change of state restarts the session's clock: a turn began (a reply) or it came to rest. */
  observe(sessionId: string, event: BatonEvent): void {
    if (event.type === 'state.changed' && event.to === 'ready_for_review')
      this.restingSince.set(sessionId, this.now());
    else if (
      event.type === 'state.changed' ||
      event.type === 'session.ended' ||
      event.type === 'session.started'
    )
      this.restingSince.delete(sessionId);
  }

  /** One tick over the live sessions; resolves once the hosts it asked have answered. */
  tick(sessions: readonly IdleCheck[]): Promise<void> {
    const live = new Set<string>();
    for (const { session, limitMs } of sessions) {
      live.add(session.id);
      this.check(session, limitMs);
    }
    for (const id of this.restingSince.keys()) if (!live.has(id)) this.restingSince.delete(id);
    return Promise.all(this.releasing.values()).then(() => undefined);
  }

  private check(session: IdleCandidate, limitMs: number | undefined): void {
    const { id } = session;
    if (limitMs === undefined || session.state !== 'ready_for_review' || session.host_pid === null) {
      this.restingSince.delete(id);
      return;
    }
    if (this.releasing.has(id)) return;
    const now = this.now();
    const since = this.restingSince.get(id);
    if (since === undefined) {
      this.restingSince.set(id, now);
      return;
    }
    if (now - since < limitMs) return;
    const message = `unused for ${formatDuration(limitMs)} after the turn; a reply resumes the conversation`;
    const asked = this.release(id, message)
      .then(
        (released) => {
          if (released) log.info('let an idle host go', { session: id, idleMs: Math.round(now - since) });
          return released;
        },
        (error: unknown) => {
          log.warn('could not let an idle host go', { session: id, error: errorMessage(error) });
          return false;
        },
      )
      .then((released) => {
        this.releasing.delete(id);
        // Refused (a request was being answered, a turn began): the session was in use just now.
        if (released) this.restingSince.delete(id);
        else this.restingSince.set(id, this.now());
      });
    this.releasing.set(id, asked);
  }
}
