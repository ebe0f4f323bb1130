/**
 * How much work each session holds (files changed, lines added and deleted against its base),
 * for the board's cards and the review queue. Each measure costs two git processes, so it is
 * cached per session until the session's event sequence moves on (agents change files through
 * tools, which log events) or the entry ages out (a person may edit a worktree by hand).
 *
 * The review queue — sessions ready for review and the size of their work — is what limits
 * parallel agents (review, not agent count, is the bottleneck). Reading it never waits on git:
 * a session is measured when it becomes ready for review, and a stale entry is re-measured in
 * the background while the last figure is shown.
 *
 * The figures are kept in a small file in Baton's home (decision 155): a supervisor that starts
 * again shows the sizes it knew at once (re-measuring them in the background) instead of a queue
 * of "not measured yet", and at start it measures every ready session it has no figure for.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceBus } from '../bus/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';
import { diffStat } from '../worktrees/index.js';

const MAX_AGE_MS = 15_000;
const PARALLEL_GIT = 4;
const FILE = 'work-sizes.json';

const log = createLogger('sessions');

export interface WorkSize {
  files: number;
  additions: number;
  deletions: number;
}

export interface ReviewQueue extends WorkSize {
  /** Sessions ready for review. */
  sessions: number;
  /** Of those, how many are still being measured (not in the sums yet). */
  measuring: number;
}

interface Entry extends WorkSize {
  seq: number;
  at: number;
}

export class WorkSizes {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly unsubscribe: () => void;
  /** Where the figures are kept between runs; undefined: only in memory. */
  private readonly file: string | undefined;
  private saving = false;

  constructor(
    private readonly sessions: {
      list(): SessionWithProject[];
      get(id: string): SessionWithProject | undefined;
    },
    bus: WorkspaceBus,
    // Monotonic: a wall clock set back would keep stale sizes for as long as it went back.
    private readonly now: () => number = () => performance.now(),
    /** Told after each measurement (the review capacity gate looks again). */
    private readonly measured: () => void = () => undefined,
    /** Where measured sizes are kept across restarts (work-sizes.json); unset, in memory only. */
    home?: string,
  ) {
    this.file = home === undefined ? undefined : join(home, FILE);
    this.load();
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type !== 'session.state_changed' || event.data.to !== 'ready_for_review') return;
      const session = this.sessions.get(event.data.sessionId);
      if (session !== undefined) void this.measure(session);
    });
  }

  /**
   * Measures, in the background and a few at a time, every session ready for review whose figure
   * is missing or stale: called once the supervisor has its sessions back, so the first `ls` after
   * a start has figures to show.
   */
  warm(): Promise<void> {
    const ready = this.sessions.list().filter((s) => s.state === 'ready_for_review' && this.isStale(s));
    return (async () => {
      for (let i = 0; i < ready.length; i += PARALLEL_GIT)
        await Promise.all(ready.slice(i, i + PARALLEL_GIT).map((s) => this.measure(s)));
    })();
  }

  /** Every live session's size, measuring the stale ones first. */
  async all(): Promise<Record<string, WorkSize>> {
    const sessions = this.sessions.list();
    const stale = sessions.filter((s) => this.isStale(s));
    for (let i = 0; i < stale.length; i += PARALLEL_GIT) {
      await Promise.all(stale.slice(i, i + PARALLEL_GIT).map((s) => this.measure(s)));
    }
    this.forgetGone(sessions);
    return Object.fromEntries(sessions.map((s) => [s.id, this.sizeOf(s)]));
  }

  /** Files changed per session, as last measured, without measuring: what a page shows before it asks `all()`. */
  known(): Record<string, number> {
    return Object.fromEntries([...this.cache].map(([id, entry]) => [id, entry.files]));
  }

  /** The review queue from what is known now; stale or unknown sessions are measured in the background. */
  reviewQueue(sessions: SessionWithProject[] = this.sessions.list()): ReviewQueue {
    const queue: ReviewQueue = { sessions: 0, measuring: 0, files: 0, additions: 0, deletions: 0 };
    for (const session of sessions) {
      if (session.state !== 'ready_for_review') continue;
      queue.sessions++;
      if (this.isStale(session)) void this.measure(session);
      const known = this.cache.get(session.id);
      if (known === undefined) {
        queue.measuring++;
        continue;
      }
      queue.files += known.files;
      queue.additions += known.additions;
      queue.deletions += known.deletions;
    }
    return queue;
  }

  close(): void {
    this.unsubscribe();
  }

  private sizeOf(session: SessionWithProject): WorkSize {
    const { files = 0, additions = 0, deletions = 0 } = this.cache.get(session.id) ?? {};
    return { files, additions, deletions };
  }

  private isStale(session: SessionWithProject): boolean {
    const cached = this.cache.get(session.id);
    return cached === undefined || cached.seq !== session.last_seq || this.now() - cached.at > MAX_AGE_MS;
  }

  private measure(session: SessionWithProject): Promise<void> {
    const running = this.inFlight.get(session.id);
    if (running !== undefined) return running;
    const at = this.now();
    const done = diffStat(session.worktree, session.base_commit)
      .then(
        (stat) =>
          this.cache.set(session.id, {
            seq: session.last_seq,
            at,
            files: stat.files.length,
            additions: stat.additions,
            deletions: stat.deletions,
          }),
        // A worktree mid-removal or broken counts as no work rather than failing the board.
        () => this.cache.set(session.id, { seq: session.last_seq, at, files: 0, additions: 0, deletions: 0 }),
      )
      .then(() => this.save())
      .finally(() => {
        this.inFlight.delete(session.id);
        this.measured();
      });
    this.inFlight.set(session.id, done);
    return done;
  }

  private forgetGone(sessions: SessionWithProject[]): void {
    const live = new Set(sessions.map((s) => s.id));
    for (const id of this.cache.keys()) if (!live.has(id)) this.cache.delete(id);
  }

  /** The figures of the last run, each stale (re-measured when next asked) but shown meanwhile. */
  private load(): void {
    if (this.file === undefined) return;
    let saved: Record<string, Partial<Entry>>;
    try {
      saved = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, Partial<Entry>>;
    } catch {
      return; // None yet, or unreadable: they are measured again.
    }
    for (const [id, entry] of Object.entries(saved)) {
      const { seq, files, additions, deletions } = entry;
      if ([seq, files, additions, deletions].every((n) => typeof n === 'number'))
        this.cache.set(id, {
          seq: seq!,
          at: Number.NEGATIVE_INFINITY,
          files: files!,
          additions: additions!,
          deletions: deletions!,
        });
    }
  }

  /** Writes the figures once per burst of measures (a write already due covers the ones after it). */
  private save(): void {
    if (this.file === undefined || this.saving) return;
    this.saving = true;
    setImmediate(() => {
      this.saving = false;
      const file = this.file!;
      const entries = Object.fromEntries(
        [...this.cache].map(([id, { seq, files, additions, deletions }]) => [
          id,
          { seq, files, additions, deletions },
        ]),
      );
      try {
        writeFileSync(`${file}.tmp`, JSON.stringify(entries));
        renameSync(`${file}.tmp`, file);
      } catch (error) {
        log.warn('could not keep the work sizes', { error: errorMessage(error) });
      }
    });
  }
}
