/**
 * Sync: in a repository whose `.baton/config.json` says `"sync": {"push": "turn"}`, every turn
 * end of a session (and its stop, completion or failure) pushes its work to the shared remote in
 * the background (push.ts), never holding the session up. One push at a time per session; turn
 * ends during a push fold into one more (coalesce.ts). A failure is a `sync.failed` event; after
 * one, a timer pushes again when the backoff is over (turn ends meanwhile wait for it), so a dead
 * remote is not hammered by a busy session and the last turn's work is not left behind. What each
 * session's last push did is rebuilt from the bus's stored `sync.*` events at start, so it, and a
 * retry still owed, survive a supervisor restart. A session's worktree is removed only once the
 * push reading it has taken its snapshot (`whileRemoving`); a removed session is not pushed again.
 */
import { existsSync } from 'node:fs';
import type { SyncStatusView } from '../api/sync.js';
import type { WorkspaceBus } from '../bus/index.js';
import { SyncFailed, SyncNotes, SyncPushed, type WorkspaceEvent } from '../events/workspace.js';
import { DEFAULT_SYNC_REMOTE, loadRepoConfig, type SyncConfig } from '../projects/index.js';
import { errorMessage, SessionStateError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';
import { Coalescer } from '../shared/coalesce.js';
import { syncNotes, type NotesSync } from './notes.js';
import { pushSessionWork, remoteBranchRef, SyncPushError, type PushInput, type PushOutcome } from './push.js';

const log = createLogger('sync');

/** States a turn ends in; an approval wait is mid-turn (the agent goes on once answered). */
const TURN_ENDS = new Set(['ready_for_review', 'completed', 'failed', 'stopped', 'needs_input']);
/** How many stored sync events of each kind are read back at start. */
const HISTORY = 2_000;

export interface SyncSessions {
  get(id: string): SessionWithProject | undefined;
  resolve(ref: string, cwd?: string): SessionWithProject;
  list(): SessionWithProject[];
  /**
   * Runs `work` while no other command of the session's own runs (keep-fresh's rebase, a merge, a
   * checkpoint's restore, a removal): one already running ends first (decision 403).
   */
  whileHeld<T>(sessionId: string, work: () => Promise<T>): Promise<T>;
}

export interface SyncServiceOptions {
  bus: WorkspaceBus;
  sessions: SyncSessions;
  /** Wall-clock milliseconds, for the backoff; tests inject their own. */
  now?: () => number;
  /** Runs `fn` after `ms`; returns a cancel. Tests inject their own. */
  schedule?: (fn: () => void, ms: number) => () => void;
  /** First wait after a failure (doubled per failure in a row, up to `maxBackoffMs`). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * True for a session this machine no longer holds (another machine took its placement over,
   * decision 136): it is never pushed, so two machines never push one branch.
   */
  lost?: (sessionId: string) => boolean;
  /** The push itself (push.ts); replaceable for the backoff's unit test. */
  push?: (input: PushInput) => Promise<PushOutcome>;
  /** One round of provenance-notes sync (notes.ts); replaceable for unit tests. */
  notes?: (root: string, remote: string) => Promise<NotesSync>;
}

interface Status {
  remote: string;
  commit: string | null;
  snapshotRef: string | null;
  snapshotCommit: string | null;
  pushedAt: string | null;
  ms: number | null;
  failure: { kind: SyncPushError['kind']; reason: string; at: string } | null;
  failures: number;
  failedAtMs: number | null;
}

export class SyncService {
  private readonly statuses = new Map<string, Status>();
  private readonly pushes: Coalescer;
  private readonly retries = new Map<string, () => void>();
  private readonly forced = new Set<string>();
  /** Sessions being removed or removed: never pushed again, never reported for their worktree going. */
  private readonly removed = new Set<string>();
  /** Each session's read of its worktree under way (the snapshot), which a removal waits for. */
  private readonly reading = new Map<string, Promise<unknown>>();
  /** Each repository's notes sync under way (one at a time per repository), and whether another is owed after it. */
  private readonly notesRounds = new Map<string, { running: Promise<void>; again: boolean }>();
  private readonly now: () => number;
  private readonly schedule: (fn: () => void, ms: number) => () => void;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: SyncServiceOptions) {
    this.now = options.now ?? (() => Date.now());
    this.schedule =
      options.schedule ??
      ((fn, ms) => {
        const timer = setTimeout(fn, ms);
        timer.unref();
        return () => clearTimeout(timer);
      });
    this.pushes = new Coalescer((sessionId) => this.pushOnce(sessionId));
  }

  /** Reads back the last pushes, then pushes at each turn end from now on. */
  start(): void {
    this.replay();
    // The status follows the stored events as the bus delivers them, published here or not.
    this.unsubscribe = this.options.bus.subscribe((event) => {
      this.record(event);
      // A failure is retried when its backoff is over, whether a turn ends meanwhile or not.
      if (event.type === 'sync.failed') this.armRetry(event.data.sessionId);
      // A landing wrote notes: they go to the remote now, not at some later session's push (the
      // landed session itself is removed and pushes no more).
      if (event.type === 'provenance.noted' && event.data.commits > 0)
        this.notesOfLanding(event.data.sessions);
      this.onEvent(event);
    });
  }

  close(): void {
    this.unsubscribe?.();
    for (const cancel of this.retries.values()) cancel();
    this.retries.clear();
  }

  /**
   * Runs `remove` (the session's worktree removal) once a push reading that worktree has taken
   * its snapshot, so a half-deleted tree is never pushed; from then on the session is not pushed.
   */
  async whileRemoving<T>(sessionId: string, remove: () => Promise<T>): Promise<T> {
    this.removed.add(sessionId);
    this.cancelRetry(sessionId);
    await this.reading.get(sessionId)?.catch(() => undefined);
    try {
      return await remove();
    } catch (error) {
      // Still there: pushed at its turn ends again.
      this.removed.delete(sessionId);
      throw error;
    }
  }

  /** Pushes under way (and any asked for after them) finished, notes rounds too. */
  async idle(): Promise<void> {
    await this.pushes.idle();
    while (this.notesRounds.size > 0)
      await Promise.all([...this.notesRounds.values()].map((r) => r.running.catch(() => undefined)));
  }

  /** The repository of a landing's sessions syncs its notes, when it pushes at all. */
  private notesOfLanding(sessions: readonly { sessionId: string }[]): void {
    const session = sessions.map((s) => this.options.sessions.get(s.sessionId)).find((s) => s !== undefined);
    if (session === undefined) return;
    const config = this.configOf(session);
    if (config?.push !== 'turn') return;
    this.syncNotesOf(session, config.remote ?? DEFAULT_SYNC_REMOTE);
  }

  /**
   * A round of notes sync for the session's repository (decision 294): one at a time per
   * repository; asked for during one, one more runs after it. Its outcome is a `sync.notes` event;
   * a failure never fails the session's push.
   */
  private syncNotesOf(session: SessionWithProject, remote: string): void {
    const root = session.project_root;
    const under = this.notesRounds.get(root);
    if (under !== undefined) {
      under.again = true;
      return;
    }
    const round = { running: Promise.resolve(), again: false };
    round.running = (async () => {
      do {
        round.again = false;
        const started = performance.now();
        const sync = this.options.notes ?? syncNotes;
        const base = { project: session.project_name, remote };
        try {
          const done = await sync(root, remote);
          if (done.merged || done.pushed)
            this.options.bus.publish(SyncNotes, {
              ...base,
              ...done,
              failure: null,
              ms: Math.round(performance.now() - started),
            });
        } catch (error) {
          log.warn('provenance notes not synced', {
            project: session.project_name,
            error: errorMessage(error),
          });
          this.options.bus.publish(SyncNotes, {
            ...base,
            local: null,
            merged: false,
            pushed: false,
            failure: errorMessage(error),
            ms: Math.round(performance.now() - started),
          });
        }
      } while (round.again);
    })().finally(() => this.notesRounds.delete(root));
    this.notesRounds.set(root, round);
  }

  /** The sessions with a push behind them or ahead of them (their repository pushes at turn ends), or one session. */
  list(ref?: string, cwd?: string): SyncStatusView[] {
    if (ref !== undefined) return [this.view(this.options.sessions.resolve(ref, cwd))];
    return this.options.sessions
      .list()
      .filter((s) => this.statuses.has(s.id) || this.configOf(s)?.push === 'turn')
      .map((s) => this.view(s));
  }

  /** Pushes now, whatever the repository's setting and the backoff, and answers with the outcome. */
  async pushNow(ref: string, cwd: string | undefined, force: boolean): Promise<SyncStatusView> {
    const session = this.options.sessions.resolve(ref, cwd);
    if (this.options.lost?.(session.id) === true)
      throw new SessionStateError(
        `Session ${session.name} is held by another machine now (it was respawned there): its branch is pushed from there, not from this copy.`,
      );
    if (force) this.forced.add(session.id);
    this.cancelRetry(session.id);
    await this.pushes.request(session.id);
    return this.view(this.options.sessions.get(session.id) ?? session);
  }

  private onEvent(event: WorkspaceEvent): void {
    if (event.type !== 'session.state_changed' || !TURN_ENDS.has(event.data.to)) return;
    if (event.data.to === 'needs_input' && event.data.reason?.kind === 'approval') return;
    const session = this.options.sessions.get(event.data.sessionId);
    if (session === undefined || this.configOf(session)?.push !== 'turn') return;
    const status = this.statuses.get(session.id);
    const wait = status === undefined ? 0 : this.backoffLeft(status);
    if (wait <= 0) void this.pushes.request(session.id);
    // Within the backoff: the one push armed for its end carries this turn's work too.
    else this.armRetry(session.id);
  }

  /** One push at the end of the session's backoff, unless one is armed already or the session is gone. */
  private armRetry(sessionId: string): void {
    const session = this.options.sessions.get(sessionId);
    const status = this.statuses.get(sessionId);
    if (
      session === undefined ||
      status === undefined ||
      status.failures === 0 ||
      this.retries.has(sessionId) ||
      this.gone(session)
    )
      return;
    if (this.configOf(session)?.push !== 'turn') return;
    this.retries.set(
      sessionId,
      this.schedule(
        () => {
          this.retries.delete(sessionId);
          void this.pushes.request(sessionId);
        },
        Math.max(0, this.backoffLeft(status)),
      ),
    );
  }

  private gone(session: SessionWithProject): boolean {
    return this.removed.has(session.id) || (session.removed_at !== null && session.removed_at !== undefined);
  }

  /**
   * The push's read of the worktree, which a removal of the session waits for (and which does not
   * start once one has begun). Under the session's hold (decision 403): a keep-fresh rebase that
   * started first ends before the read, so a worktree mid-rebase (its work set aside, its HEAD on a
   * half-rebased commit) is never pushed as the session's. A removal holds the session too, but
   * waits for `reading` only, which is set under the hold: the two never wait on each other.
   */
  private readWorktree(sessionId: string): <T>(read: () => Promise<T>) => Promise<T> {
    return (read) =>
      this.options.sessions.whileHeld(sessionId, async () => {
        if (this.removed.has(sessionId)) throw new SyncPushError('error', 'the session is being removed');
        const reading = read();
        this.reading.set(sessionId, reading);
        try {
          return await reading;
        } finally {
          if (this.reading.get(sessionId) === reading) this.reading.delete(sessionId);
        }
      });
  }

  private async pushOnce(sessionId: string): Promise<void> {
    const session = this.options.sessions.get(sessionId);
    if (session === undefined) return log.info('not pushed: the session is gone', { sessionId });
    if (this.gone(session)) return log.info('not pushed: the session was removed', { session: session.name });
    if (this.options.lost?.(sessionId) === true)
      return log.warn('not pushed: another machine holds the session now and pushes its branch', {
        session: session.name,
      });
    const force = this.forced.delete(sessionId);
    const remote = this.configOf(session)?.remote ?? DEFAULT_SYNC_REMOTE;
    const who = { sessionId: session.id, name: session.name, project: session.project_name };
    const started = performance.now();
    const push = this.options.push ?? pushSessionWork;
    const hadWorktree = existsSync(session.worktree);
    try {
      const pushed = await push({
        repo: session.project_root,
        worktree: session.worktree,
        branch: session.branch,
        name: session.name,
        sessionId: session.id,
        remote,
        lastPushed: this.statuses.get(sessionId)?.commit ?? undefined,
        force,
        readWorktree: this.readWorktree(sessionId),
      });
      const ms = Math.round(performance.now() - started);
      this.options.bus.publish(SyncPushed, { ...who, remote, ...pushed, ms });
      // Every push also brings the remote's provenance notes in and sends this clone's out.
      this.syncNotesOf(session, remote);
      log.info('pushed', {
        session: session.name,
        remote,
        commit: pushed.commit,
        snapshot: pushed.snapshotCommit,
        ms,
      });
    } catch (error) {
      // Removed under the push (a landed session is completed, then removed at once): its work is
      // on the base or in its local snapshot, and nothing is wrong with the remote.
      if (this.removed.has(sessionId) || (hadWorktree && !existsSync(session.worktree))) {
        log.info('not pushed: the session was removed meanwhile', {
          session: session.name,
          error: errorMessage(error),
        });
        return;
      }
      const kind = error instanceof SyncPushError ? error.kind : 'error';
      const failures = (this.statuses.get(sessionId)?.failures ?? 0) + 1;
      if (!(error instanceof SyncPushError))
        log.error('a push failed unexpectedly', { session: session.name, error: errorMessage(error) });
      this.options.bus.publish(SyncFailed, { ...who, remote, kind, reason: errorMessage(error), failures });
      log.warn('push failed', { session: session.name, remote, kind, reason: errorMessage(error), failures });
    }
  }

  /** A session's status from a stored `sync.*` event. */
  private record(event: WorkspaceEvent): void {
    if (event.type === 'sync.pushed') {
      const d = event.data;
      this.statuses.set(d.sessionId, {
        remote: d.remote,
        commit: d.commit,
        snapshotRef: d.snapshotRef,
        snapshotCommit: d.snapshotCommit,
        pushedAt: event.ts,
        ms: d.ms,
        failure: null,
        failures: 0,
        failedAtMs: null,
      });
    } else if (event.type === 'sync.failed') {
      const d = event.data;
      const before = this.statuses.get(d.sessionId);
      this.statuses.set(d.sessionId, {
        ...(before ?? { commit: null, snapshotRef: null, snapshotCommit: null, pushedAt: null, ms: null }),
        remote: d.remote,
        failure: { kind: d.kind, reason: d.reason, at: event.ts },
        failures: d.failures,
        failedAtMs: Date.parse(event.ts),
      });
    }
  }

  private replay(): void {
    const stored = [
      ...this.options.bus.latestOfType('sync.pushed', HISTORY),
      ...this.options.bus.latestOfType('sync.failed', HISTORY),
    ];
    for (const event of stored.sort((a, b) => a.seq - b.seq)) this.record(event);
    // A push that failed before the restart, with no turn end to come (a completed session), is still owed.
    for (const sessionId of this.statuses.keys()) this.armRetry(sessionId);
  }

  private backoffLeft(status: Status): number {
    if (status.failures === 0 || status.failedAtMs === null) return 0;
    const base = this.options.backoffMs ?? 30_000;
    const wait = Math.min(base * 2 ** (status.failures - 1), this.options.maxBackoffMs ?? 15 * 60_000);
    return status.failedAtMs + wait - this.now();
  }

  private cancelRetry(sessionId: string): void {
    this.retries.get(sessionId)?.();
    this.retries.delete(sessionId);
  }

  private configOf(session: SessionWithProject): SyncConfig | undefined {
    try {
      return loadRepoConfig(session.project_root).sync;
    } catch (error) {
      // The config's owner (the watchdog's config alert, the next dispatch) names the bad key.
      log.warn('the repository config cannot be read; not pushing', {
        project: session.project_root,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  private view(session: SessionWithProject): SyncStatusView {
    const status = this.statuses.get(session.id);
    const config = this.configOf(session);
    const wait = status === undefined ? 0 : this.backoffLeft(status);
    return {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      remote: status?.remote ?? config?.remote ?? DEFAULT_SYNC_REMOTE,
      push: config?.push ?? 'off',
      ref: remoteBranchRef(session.name),
      commit: status?.commit ?? null,
      snapshotRef: status?.snapshotRef ?? null,
      snapshotCommit: status?.snapshotCommit ?? null,
      pushedAt: status?.pushedAt ?? null,
      ms: status?.ms ?? null,
      failure: status?.failure ?? null,
      failures: status?.failures ?? 0,
      pushing: this.pushes.busy(session.id),
      nextTryAt: wait > 0 ? new Date(this.now() + wait).toISOString() : null,
    };
  }
}
