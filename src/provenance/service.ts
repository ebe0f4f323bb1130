/**
 * The provenance service, in the supervisor: it follows every session's events (record.ts keeps
 * each one's turn under way), commits each finished turn's work onto the session's chain
 * (chain.ts), one record at a time per session, then checks it where the repository asks
 * (verify.ts), notes a landing's commits once their sessions' records are all written
 * (notes.ts), and answers `baton blame` and `baton why` (blame.ts).
 */
import { existsSync } from 'node:fs';
import type {
  BlameView,
  EvidenceMark,
  RedGreenView,
  SessionBlameView,
  SessionEvidenceView,
  WhyView,
} from '../api/provenance.js';
import type { WorkspaceBus } from '../bus/index.js';
import type { BatonEvent } from '../events/index.js';
import { formatEvent } from '../events/format.js';
import { ProvenanceNoted, ProvenanceRecorded } from '../events/workspace.js';
import { errorMessage, InvalidInputError, SessionNotFoundError } from '../shared/errors.js';
import { crashPoint } from '../shared/crash-points.js';
import { pausePoint } from '../shared/test-points.js';
import { createLogger } from '../shared/log.js';
import type { EvidenceRow, EvidenceStore } from '../store/evidence.js';
import type { SessionWithProject } from '../store/sessions.js';
import { workTreeOr } from '../worktrees/index.js';
import { attributeFile } from './attribute.js';
import { blameFile, parseBlameSpec } from './blame.js';
import { recordTurn } from './chain.js';
import type { Evidence } from './evidence.js';
import { noteLanding } from './notes.js';

import { TurnTracker, turnRecord, type TurnRecord } from './record.js';
import { TurnVerifier, type VerifyOptions } from './verify.js';

const log = createLogger('provenance');

/** Events read per batch when a session's turn is rebuilt from the store. */
const REPLAY_BATCH = 5_000;
/** Entries of a turn's transcript `baton why` prints. */
const WHY_ENTRIES = 40;

export interface ProvenanceSessions {
  get(id: string): SessionWithProject | undefined;
  resolve(ref: string, cwd?: string): SessionWithProject;
  list(): SessionWithProject[];
  eventsAfter(sessionId: string, after: number, limit?: number): BatonEvent[];
  /**
   * Runs `work` while no other command of the session's own runs (keep-fresh's rebase, a merge, a
   * checkpoint's restore, a removal): one already running ends first (decision 406).
   */
  whileHeld<T>(sessionId: string, work: (session: SessionWithProject) => Promise<T>): Promise<T>;
}

export interface ProvenanceOptions {
  bus: WorkspaceBus;
  sessions: ProvenanceSessions;
  /** Subscribes to every stored event of every session; returns the unsubscribe. */
  onEvent(listener: (sessionId: string, event: BatonEvent) => void): () => void;
  /** The name of the session this one was handed off from, if any (src/context's handoffs). */
  handoffFrom?: (sessionId: string) => string | null;
  now?: () => Date;
  /** Where each session's evidence is kept (decision 290), so a restart and a merge find it. */
  store: EvidenceStore;
  /**
   * Runs the repository's check at turn ends where `.baton/config.json` says `"verify": {"run":
   * "turn"}` (decision 253): the merge queue's runner, Baton's state folder (for trust) and the
   * environment checks run in. Without it, no check runs and every session is claimed or none.
   */
  verify?: VerifyOptions;
}

export interface LandedSessions {
  root: string;
  project: string;
  previous: string;
  commit: string;
  squash: boolean;
  members: { session: SessionWithProject; tip: string; head: string }[];
}

export class ProvenanceService {
  private readonly trackers = new Map<string, TurnTracker>();
  /** Each session's records, one after another; a landing waits for its sessions' last. */
  private readonly records = new Map<string, Promise<void>>();
  private readonly now: () => Date;
  /** Each session's checks, one at a time, apart from its records so a landing does not wait on a test run. */
  private readonly checks = new Map<string, Promise<void>>();
  private off: (() => void) | undefined;

  /** Baton's own check of each turn's work, where the repository asks for one (verify.ts). */
  private readonly verifier: TurnVerifier;

  constructor(private readonly options: ProvenanceOptions) {
    this.now = options.now ?? (() => new Date());
    this.verifier = new TurnVerifier({
      verify: options.verify,
      store: options.store,
      bus: options.bus,
      now: () => this.now(),
    });
  }

  start(): void {
    this.off ??= this.options.onEvent((sessionId, event) => this.observe(sessionId, event));
  }

  close(): void {
    this.off?.();
    this.off = undefined;
  }

  /** One stored event of a session. Cheap unless it ends a turn (then a record is queued). */
  observe(sessionId: string, event: BatonEvent): void {
    let tracker = this.trackers.get(sessionId);
    if (tracker === undefined) {
      tracker = this.replay(sessionId, event.seq);
      this.trackers.set(sessionId, tracker);
    }
    const finished = tracker.add(event);
    if (event.type === 'session.ended') this.trackers.delete(sessionId);
    if (finished === undefined) return;
    const session = this.options.sessions.get(sessionId);
    if (session === undefined) return;
    const record = this.turnRecord(session, finished);
    // Marked under way with the event that ended the turn, so a killed supervisor's next start
    // records it (decision 430).
    this.options.store.claimed(sessionId, record.checks ?? [], event.seq);
    this.queue(this.records, sessionId, () => this.record(session, record, event.seq));
  }

  /**
   * Queues the records a killed supervisor left under way (decision 430, "A turn record a killed
   * supervisor left under way is taken at the next start"): each turn is rebuilt from the stored
   * events up to the one that ended it, and recorded from the worktree as it is now. Called at
   * start, before the events written while the supervisor was down are ingested. Returns how many.
   */
  catchUp(): number {
    let queued = 0;
    for (const { session_id: sessionId, record_seq: seq } of this.options.store.recordsUnfinished()) {
      const session = this.options.sessions.get(sessionId);
      const [event] = session === undefined ? [] : this.options.sessions.eventsAfter(sessionId, seq - 1, 1);
      const finished = event?.seq === seq ? this.replay(sessionId, seq).add(event) : undefined;
      if (session === undefined || finished === undefined) {
        this.options.store.recordEnded(sessionId, seq);
        continue;
      }
      const record = this.turnRecord(session, finished);
      this.queue(this.records, sessionId, () => this.record(session, record, seq));
      queued += 1;
    }
    return queued;
  }

  private turnRecord(
    session: SessionWithProject,
    finished: NonNullable<ReturnType<TurnTracker['add']>>,
  ): TurnRecord {
    return turnRecord(
      {
        sessionId: session.id,
        name: session.name,
        agent: session.agent,
        model: session.model,
        task: session.task_id,
        prompt: session.prompt,
      },
      finished,
      this.options.handoffFrom?.(session.id) ?? null,
      this.now(),
    );
  }

  /** Where each session (or the one named) stands: verified, failing, claimed, or none. */
  evidenceOf(ref: string | undefined, cwd: string | undefined): SessionEvidenceView[] {
    const sessions =
      ref === undefined ? this.options.sessions.list() : [this.options.sessions.resolve(ref, cwd)];
    return sessions.map((s) => evidenceView(s, this.options.store.get(s.id)));
  }

  /** A session's evidence in one glance for its view (`ls`, the board, the page); undefined when there is none. */
  mark(sessionId: string, name: string): EvidenceMark | undefined {
    const row = this.options.store.get(sessionId);
    if (row === undefined) return undefined;
    const view = evidenceView({ id: sessionId, name }, row);
    const tests = view.redGreen?.tests ?? [];
    if (view.status === 'none' && tests.length === 0) return undefined;
    return {
      status: view.status,
      command: view.evidence?.command ?? (view.claimed.length > 0 ? view.claimed.join('; ') : null),
      tests: view.evidence?.tests ?? null,
      tree: view.evidence?.tree ?? null,
      vacuous: tests.filter((t) => t.vacuous).map((t) => t.file),
      proving: tests.filter((t) => t.proves).map((t) => t.file),
    };
  }

  /**
   * A passing run of `command` Baton made at a turn's end on exactly `tree`, if any: a merge about
   * to land that tree need not run the same check again (decision 291).
   */
  reusable(tree: string, command: string): Evidence | undefined {
    for (const row of this.options.store.onTree(tree)) {
      const evidence = parse<Evidence>(row.evidence_json);
      // A pass in a worktree that held ignored files may have leaned on them: the tree alone was
      // not what passed, so the merge runs the check on it (decision 340).
      if (
        evidence?.outcome === 'passed' &&
        evidence.tree === tree &&
        evidence.command === command &&
        (evidence.outsideTree ?? []).length === 0
      )
        return evidence;
    }
    return undefined;
  }

  /** Resolves once the checks queued so far for this session have run. */
  async verified(sessionId: string): Promise<void> {
    await (this.checks.get(sessionId) ?? Promise.resolve());
  }

  /** Resolves once every record queued so far for these sessions is written (or has failed). */
  async settled(sessionIds: readonly string[]): Promise<void> {
    await Promise.all(sessionIds.map((id) => this.records.get(id) ?? Promise.resolve()));
  }

  /** How many sessions have a record under way. */
  pending(): number {
    return this.records.size;
  }

  /**
   * Resolves once no record is under way (each written or failed), or after `ms`; says how many it
   * waited for. A turn's record is taken only as its end is ingested, so one a stopping supervisor
   * cut short would leave the turn's lines to nobody: the stop waits for them. The supervisor
   * still ingests while it waits, so a turn ending meanwhile is waited for too (decision 429, "A
   * stop also waits for a record a turn ending during the stop started"); `ms` bounds it however
   * many turns end.
   */
  async drain(ms: number): Promise<number> {
    if (this.records.size === 0) return 0;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const bounded = new Promise<void>(
      (resolve) =>
        (timer = setTimeout(() => {
          timedOut = true;
          resolve();
        }, ms)),
    );
    const waited = new Set<Promise<void>>();
    for (;;) {
      // Only those not yet seen settled: one still in the map a tick after it settled is not waited on again.
      const pending = [...this.records.values()].filter((p) => !waited.has(p));
      if (pending.length === 0 || timedOut) break;
      for (const p of pending) waited.add(p);
      await Promise.race([Promise.all(pending), bounded]);
    }
    clearTimeout(timer);
    return waited.size;
  }

  /** Notes a landing's commits with the turns that wrote their lines. */
  async landed(landing: LandedSessions): Promise<void> {
    await this.settled(landing.members.map((m) => m.session.id));
    const started = performance.now();
    const noted = await noteLanding({
      root: landing.root,
      previous: landing.previous,
      commit: landing.commit,
      squash: landing.squash,
      members: landing.members.map((m) => ({
        sessionId: m.session.id,
        base: m.session.base_commit,
        tip: m.tip,
        head: m.head,
      })),
      complete: (record) =>
        record.handoffFrom !== null
          ? record
          : { ...record, handoffFrom: this.options.handoffFrom?.(record.sessionId) ?? null },
    });
    this.options.bus.publish(ProvenanceNoted, {
      project: landing.project,
      commit: landing.commit,
      sessions: landing.members.map((m) => ({ sessionId: m.session.id, name: m.session.name })),
      ...noted,
      ms: Math.round(performance.now() - started),
    });
  }

  async blame(cwd: string | undefined, spec: string): Promise<BlameView> {
    const where = requireCwd(cwd);
    const { path, from, to } = parseBlameSpec(spec);
    const lines = await blameFile(where, path, from, to);
    return { path, lines };
  }

  /**
   * Which turn of the session last wrote each line of `path` in its work as it is (its worktree,
   * or its branch once the worktree is gone), from its turn chain (decision 295). Only the lines
   * that differ from its base can have a turn; a file the work does not change has none.
   */
  async sessionBlame(ref: string, cwd: string | undefined, path: string): Promise<SessionBlameView> {
    const session = this.options.sessions.resolve(ref, cwd);
    if (path.startsWith('-') || path.startsWith('/') || path.includes('\0') || path.split('/').includes('..'))
      throw new InvalidInputError(
        `${JSON.stringify(path)} is not a path in the session's work; give one relative to its repository's root, as in src/app.ts.`,
      );
    const empty = { sessionId: session.id, name: session.name, path, turns: [], lines: [] };
    if (!existsSync(session.project_root)) return empty;
    // The work as it is on disk (uncommitted and untracked files too), as the diff shows it.
    const tip = await workTreeOr(session.worktree, `refs/heads/${session.branch}`, (error) =>
      log.warn("a session blame reads its branch: its worktree's work could not be read", {
        session: session.name,
        error: errorMessage(error),
      }),
    );
    await this.settled([session.id]);
    const file = await attributeFile({
      root: session.project_root,
      sessionId: session.id,
      base: session.base_commit,
      tip,
      path,
    }).catch((error: unknown) => {
      log.warn('a session blame failed', { session: session.name, path, error: errorMessage(error) });
      return undefined;
    });
    return { ...empty, ...file };
  }

  async why(cwd: string | undefined, spec: string): Promise<WhyView> {
    const where = requireCwd(cwd);
    const { path, from } = parseBlameSpec(spec);
    if (from === undefined) throw new InvalidInputError(`Say which line: baton why ${spec}:<line>.`);
    const [line] = await blameFile(where, path, from, from);
    if (line === undefined) throw new InvalidInputError(`${path} has no line ${from}.`);
    const turn = line.turn;
    if (turn === null) return { path, line, transcript: null };
    const session = this.options.sessions.get(turn.sessionId);
    const entries =
      session === undefined
        ? []
        : this.options.sessions
            .eventsAfter(turn.sessionId, turn.startSeq - 1, Math.min(turn.endSeq - turn.startSeq + 1, 10_000))
            .filter((e) => e.seq <= turn.endSeq && shown(e))
            .slice(-WHY_ENTRIES)
            .map((e) => ({ seq: e.seq, text: formatEvent(e) }));
    return {
      path,
      line,
      transcript: {
        sessionId: turn.sessionId,
        name: turn.name,
        kept: session !== undefined,
        command: `baton transcript ${session === undefined ? turn.sessionId : turn.name}`,
        startSeq: turn.startSeq,
        endSeq: turn.endSeq,
        entries,
      },
    };
  }

  /** The tracker of a session seen first mid-way (a restart): its events before `seq` replayed from the store. */
  private replay(sessionId: string, seq: number): TurnTracker {
    const tracker = new TurnTracker();
    for (let after = 0; after < seq - 1;) {
      // No more rows than can lie before `seq` (seqs rise): a restart's ingestion hands each
      // session's first new event at once, and reading its whole log here doubled ingestion's work.
      const batch = this.options.sessions.eventsAfter(
        sessionId,
        after,
        Math.min(REPLAY_BATCH, seq - 1 - after),
      );
      if (batch.length === 0) break;
      for (const event of batch) {
        if (event.seq >= seq) return tracker;
        tracker.add(event);
      }
      after = batch[batch.length - 1]!.seq;
    }
    return tracker;
  }

  private queue(into: Map<string, Promise<void>>, sessionId: string, work: () => Promise<void>): void {
    const next = (into.get(sessionId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) =>
        log.warn('a turn was not recorded or checked', { session: sessionId, error: errorMessage(error) }),
      );
    into.set(sessionId, next);
    void next.then(() => {
      if (into.get(sessionId) === next) into.delete(sessionId);
    });
  }

  private async record(session: SessionWithProject, record: TurnRecord, seq: number): Promise<void> {
    try {
      // Its worktree gone (landed, removed): the work is wherever it went, with the turns before.
      if (!existsSync(session.worktree) || !existsSync(session.project_root)) return;
      // Race tests stop a record here, before it waits for the session's hold; crash tests kill here.
      await pausePoint('provenance.recording');
      crashPoint('provenance.recording');
      // Under the session's hold (decision 406): the turn ends keep-fresh's rebase starts at too, and
      // a worktree read mid-rebase (its uncommitted work set aside) would give the turn's lines to
      // the next one. The row as it is then: a rebase that ran first moved its base. Removed
      // meanwhile: nothing to read, as above.
      await this.options.sessions
        .whileHeld(session.id, (now) => this.recordNow(now, record))
        .catch((error: unknown) => {
          if (!(error instanceof SessionNotFoundError)) throw error;
        });
    } finally {
      // Written or failed for good (a failure is logged): not taken again at the next start.
      this.options.store.recordEnded(session.id, seq);
    }
  }

  private async recordNow(session: SessionWithProject, record: TurnRecord): Promise<void> {
    if (!existsSync(session.worktree)) return;
    const started = performance.now();
    const made = await recordTurn({
      root: session.project_root,
      worktree: session.worktree,
      base: session.base_commit,
      record,
    });
    this.options.bus.publish(ProvenanceRecorded, {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      turn: record.turn,
      commit: made?.commit ?? null,
      files: [...new Set(record.tools.flatMap((t) => t.files))],
      ms: Math.round(performance.now() - started),
    });
    if (made === undefined) return;
    this.options.store.recorded(session.id, made.tree);
    this.queue(this.checks, session.id, () => this.verifier.check(session, record, made.tree));
  }
}

function requireCwd(cwd: string | undefined): string {
  if (cwd === undefined)
    throw new InvalidInputError('Say which repository: run it inside a checkout (the CLI sends its folder).');
  return cwd;
}

/** What of a turn `baton why` shows: what was said and what the tools did, not the bookkeeping. */
function shown(event: BatonEvent): boolean {
  return (
    event.type === 'turn.started' ||
    event.type === 'message.added' ||
    event.type === 'tool.started' ||
    event.type === 'turn.completed'
  );
}

function parse<T>(json: string | null): T | null {
  if (json === null) return null;
  try {
    return JSON.parse(json) as T;
  } catch {
    return null;
  }
}

/** Where a session stands from its stored row: Baton's run on its work as it is now, else its agent's claims. */
function evidenceView(s: { id: string; name: string }, row: EvidenceRow | undefined): SessionEvidenceView {
  const evidence = parse<Evidence>(row?.evidence_json ?? null);
  const current = evidence !== null && row?.tree !== null && evidence.tree === row?.tree ? evidence : null;
  const claimed = parse<string[]>(row?.claims_json ?? null) ?? [];
  const redGreen = parse<RedGreenView>(row?.red_green_json ?? null);
  const status =
    current !== null
      ? current.outcome === 'passed'
        ? 'verified'
        : 'failing'
      : claimed.length > 0
        ? 'claimed'
        : 'none';
  return {
    sessionId: s.id,
    name: s.name,
    status,
    evidence: current,
    claimed,
    redGreen: redGreen !== null && redGreen.tree === row?.tree ? redGreen : null,
  };
}
