/**
 * The conflict radar: which live sessions will collide with each other, and with their moving
 * base, before anyone merges. A pass snapshots sessions' work (uncommitted included, without
 * touching their worktrees), compares every pair within a project and each session with its base
 * branch's tip, and publishes what became hot or soft, or cleared, on the workspace bus.
 */
import { existsSync } from 'node:fs';
import type { Conflict, ConflictSide, ConflictsView, RadarPassStats } from '../api/conflicts.js';
import type { WorkspaceBus } from '../bus/index.js';
import { errorMessage, ProjectNotFoundError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';
import { snapshotWork } from '../worktrees/index.js';
import { Comparer } from './compare.js';
import type { OtherMachinesWork } from './others.js';
import { knownOf, publishChanges, type Known } from './events.js';
import { eachLimited, GitRunner } from './git-runner.js';
import { baseTips, projectJobs, sessionSide, type Outcome, type Tracked } from './jobs.js';

const log = createLogger('radar');

/** A snapshot hashes whatever changed (a first one after a big generated folder appears can be slow); longer than this is a hang. */
export const SNAPSHOT_TIMEOUT_MS = 60_000;

/** What the radar needs of the sessions domain (the SessionManager has it). */
export interface RadarSessions {
  list(): SessionWithProject[];
  resolve(ref: string, cwd?: string): SessionWithProject;
}

export interface RadarOptions {
  sessions: RadarSessions;
  bus: WorkspaceBus;
  git?: GitRunner;
  /** After each pass: the conflicts that turned hot in it, and all conflicts now (telling the agents). */
  onPass?: (turnedHot: Conflict[], current: Conflict[]) => void;
  now?: () => Date;
  /** What the radar last told (its stored events, replayed): a restarted supervisor announces only what changed. */
  told?: Map<string, Known>;
  /**
   * Other machines' sessions of this machine's repositories, with their pushed work (a shared
   * workspace): compared with this machine's sessions, never with each other or their base.
   */
  elsewhere?: OtherMachinesWork | undefined;
}

export class ConflictRadar {
  readonly git: GitRunner;
  private readonly comparer: Comparer;
  private readonly tracked = new Map<string, Tracked>();
  private current = new Map<string, Conflict>();
  private told: Map<string, Known>;
  private last: RadarPassStats | null = null;
  private running: Promise<void> | undefined;

  constructor(private readonly options: RadarOptions) {
    this.git = options.git ?? new GitRunner();
    this.comparer = new Comparer(this.git);
    this.told = options.told ?? new Map<string, Known>();
  }

  /** Fetches of other machines' pushed work so far. */
  get fetches(): number {
    return this.options.elsewhere?.fetches ?? 0;
  }

  /** The conflicts of the last pass, hot first; filtered to a project and/or a session. */
  view(
    filter: { project?: string | undefined; session?: string | undefined } = {},
    cwd?: string,
  ): ConflictsView {
    let conflicts = [...this.current.values()];
    if (filter.project !== undefined) {
      const live = this.options.sessions.list();
      const root = live.find(
        (s) => s.project_root === filter.project || s.project_name === filter.project,
      )?.project_root;
      if (root === undefined)
        throw new ProjectNotFoundError(filter.project, [...new Set(live.map((s) => s.project_name))]);
      conflicts = conflicts.filter((c) => c.projectRoot === root);
    }
    if (filter.session !== undefined) {
      // Resolved like every session name: the caller's own project first, then another machine's.
      const id = this.resolveAnywhere(filter.session, cwd);
      conflicts = conflicts.filter(
        (c) => c.a.sessionId === id || (c.b.kind === 'session' && c.b.sessionId === id),
      );
    }
    return { conflicts: conflicts.sort(order), pass: this.last };
  }

  private resolveAnywhere(ref: string, cwd: string | undefined): string {
    try {
      return this.options.sessions.resolve(ref, cwd).id;
    } catch (error) {
      const remote = (this.options.elsewhere?.latest ?? []).map((t) => t.session);
      const found =
        remote.find((s) => s.id === ref) ??
        remote.find((s) => s.name === ref) ??
        (ref.length >= 4 ? remote.find((s) => s.id.startsWith(ref)) : undefined);
      if (found === undefined) throw error;
      return found.id;
    }
  }

  /** Whether a pass has run. */
  get ready(): boolean {
    return this.last !== null;
  }

  /**
   * Runs a pass: `fresh` sessions (all when unset) are snapshotted again; the others keep their
   * last snapshot. Passes never overlap: a pass asked for during one runs after it.
   */
  async pass(fresh?: Iterable<string>): Promise<RadarPassStats> {
    const ids = fresh === undefined ? undefined : new Set(fresh);
    const previous = this.running ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.runPass(ids));
    this.running = run.catch(() => undefined);
    await run;
    return this.last as RadarPassStats;
  }

  private async runPass(fresh: Set<string> | undefined): Promise<void> {
    const started = performance.now();
    const callsBefore = this.git.calls;
    const counters = this.comparer.counters;
    counters.cacheHits = 0;
    counters.timedOut = 0;
    const stats: RadarPassStats = {
      at: (this.options.now?.() ?? new Date()).toISOString(),
      ms: 0,
      sessions: 0,
      snapshots: 0,
      pairsChecked: 0,
      pairsSkippedDisjoint: 0,
      pairsCached: 0,
      cacheHits: 0,
      gitCalls: 0,
      timedOut: 0,
      pairMsP50: 0,
      pairMsP95: 0,
      errors: [],
    };
    const live = this.options.sessions.list().filter((s) => s.removed_at === null && existsSync(s.worktree));
    const byId = new Map(live.map((s) => [s.id, s]));
    for (const id of this.tracked.keys()) if (!byId.has(id)) this.tracked.delete(id);
    // Each repository's branch tips are read beside the snapshots, not after them (decision 449),
    // and, when a snapshot may bring work to compare, its settings for this pass's diffs and
    // merge-trees (decision 467).
    this.comparer.beginPass();
    const tipsOf = new Map<string, Promise<Map<string, string>>>();
    for (const root of new Set(live.map((s) => s.project_root))) {
      const asked = baseTips(this.git, root);
      // Its failure is projectJobs' to report, when it awaits it.
      asked.catch(() => undefined);
      tipsOf.set(root, asked);
      if (fresh === undefined || fresh.size > 0) this.comparer.listSettingsNow(root);
    }
    await eachLimited(live, 4, async (session) => {
      const known = this.tracked.get(session.id);
      if (known !== undefined && fresh !== undefined && !fresh.has(session.id)) {
        known.session = session;
        return;
      }
      try {
        const snapshot = await snapshotWork(session.worktree, { timeoutMs: SNAPSHOT_TIMEOUT_MS });
        stats.snapshots++;
        this.tracked.set(session.id, { session, snapshot });
      } catch (error) {
        // A worktree git cannot read this moment (mid-rebase, removed under us): its last snapshot stands.
        stats.errors.push({ sessionId: session.id, name: session.name, message: errorMessage(error) });
        if (known !== undefined) known.session = session;
      }
    });
    const remote = await this.readElsewhere(stats);
    for (const t of remote) byId.set(t.session.id, t.session);
    const next = new Map<string, Conflict>();
    const failed = new Set<string>();
    const pairTimes: number[] = [];
    const projects = new Map<string, Tracked[]>();
    for (const t of [...this.tracked.values(), ...remote])
      projects.set(t.session.project_root, [...(projects.get(t.session.project_root) ?? []), t]);
    for (const [root, members] of projects) {
      stats.sessions += members.length;
      const record = (key: string, a: Tracked, b: ConflictSide, outcome: Outcome): void => {
        stats.pairsChecked += outcome.cached ? 0 : 1;
        stats.pairsCached += outcome.cached ? 1 : 0;
        if (!outcome.cached && outcome.result.disjoint) stats.pairsSkippedDisjoint++;
        const r = outcome.result;
        if (r.level === null) return;
        next.set(key, {
          key,
          project: a.session.project_name,
          projectRoot: root,
          level: r.level,
          a: sessionSide(a),
          b,
          mergeBase: r.mergeBase,
          files: r.files,
          note: r.note,
        });
      };
      const jobs = await projectJobs(this.git, this.comparer, root, members, record, tipsOf.get(root));
      await eachLimited(jobs, 4, async (job) => {
        const t0 = performance.now();
        try {
          await job.run();
          pairTimes.push(performance.now() - t0);
        } catch (error) {
          failed.add(job.key);
          // One pair git could not answer (a diff that timed out) leaves the others standing.
          log.warn('a radar pair failed', { project: root, error: errorMessage(error) });
          stats.timedOut += /timed out/.test(errorMessage(error)) ? 1 : 0;
        }
      });
    }
    this.comparer.sweep();
    // A pair that failed this pass keeps its last answer rather than clearing by accident.
    for (const [key, conflict] of this.current)
      if (!next.has(key) && failed.has(key)) next.set(key, conflict);
    this.current = next;
    const turnedHot = publishChanges(this.options.bus, this.told, next, (id) => byId.has(id));
    this.told = new Map([...next].map(([key, conflict]) => [key, knownOf(conflict)]));
    try {
      this.options.onPass?.(turnedHot, [...next.values()]);
    } catch (error) {
      log.error('after-pass hook failed', { error: errorMessage(error) });
    }
    stats.cacheHits = counters.cacheHits;
    stats.timedOut += counters.timedOut;
    stats.gitCalls = this.git.calls - callsBefore;
    pairTimes.sort((x, y) => x - y);
    const at = (q: number): number =>
      Math.round((pairTimes[Math.min(pairTimes.length - 1, Math.floor(q * pairTimes.length))] ?? 0) * 100) /
      100;
    stats.pairMsP50 = at(0.5);
    stats.pairMsP95 = at(0.95);
    stats.ms = Math.round((performance.now() - started) * 10) / 10;
    this.last = stats;
  }

  /** Other machines' members with their pushed work; none when there are no others (or they cannot be read). */
  private async readElsewhere(stats: RadarPassStats): Promise<Tracked[]> {
    if (this.options.elsewhere === undefined) return [];
    try {
      const read = await this.options.elsewhere.read();
      stats.elsewhere = { sessions: read.tracked.length, fetched: read.fetched, fetchMs: read.fetchMs };
      return read.tracked;
    } catch (error) {
      log.warn("could not list the other machines' sessions; this pass compares this machine's alone", {
        error: errorMessage(error),
      });
      return [];
    }
  }
}

function order(x: Conflict, y: Conflict): number {
  if (x.level !== y.level) return x.level === 'hot' ? -1 : 1;
  if (x.b.kind !== y.b.kind) return x.b.kind === 'session' ? -1 : 1;
  return x.key.localeCompare(y.key);
}
