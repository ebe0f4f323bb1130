/**
 * The attempts service: starts best-of groups and fan-outs, compares a group's attempts, picks a
 * winner, and keeps fan-outs moving (retries, the finish) from the sessions' state changes on
 * the workspace bus. The supervisor makes one; the routes call it.
 */
import { join } from 'node:path';
import type { z } from 'zod';
import type {
  AttemptGroupView,
  BestOfRequest,
  FanoutRequest,
  FanoutView,
  GroupList,
  PickView,
} from '../api/attempts.js';
import type { ConflictsView } from '../api/conflicts.js';
import type { WorkspaceBus } from '../bus/index.js';
import { AttemptStarted, type WorkspaceEvent } from '../events/workspace.js';
import { type MergeService, removeStaleScratches } from '../merge/index.js';
import { errorMessage, InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { AttemptStore, type AttemptGroupWithProject, type AttemptKind } from '../store/attempts.js';
import type { Db } from '../store/db.js';
import { compareAttempt, type CompareContext } from './compare.js';
import { AmbiguousGroupError, AttemptGroupNotFoundError } from './errors.js';
import { fanoutReport, onMemberChanged, step } from './fanout.js';
import { continueNote } from './ledger.js';
import { groupOfPick, pick, resumePicks } from './pick.js';
import type { AttemptSessions } from './sessions.js';
import { planBestOf, planFanout, startMembers, type StartedGroup } from './start.js';
import { summaryOf } from './views.js';

const log = createLogger('attempts');

export interface AttemptServiceOptions {
  home: string;
  db: Db;
  sessions: AttemptSessions;
  bus: WorkspaceBus;
  merges: () => Pick<MergeService, 'enqueue'>;
  /** The conflict radar's last view; without it, attempts show no conflicts. */
  conflicts?: () => ConflictsView;
  /** The environment checks run in (the supervisor's). */
  env: NodeJS.ProcessEnv;
  clock?: () => Date;
}

export class AttemptService {
  readonly store: AttemptStore;
  private readonly clock: () => Date;
  private readonly inFlight: CompareContext['inFlight'] = new Map();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: AttemptServiceOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.store = new AttemptStore(options.db, this.clock);
  }

  /** Follows the sessions of running fan-outs; after a start, also does what the last supervisor left undone. */
  async start(): Promise<void> {
    this.unsubscribe ??= this.options.bus.subscribe((event: WorkspaceEvent) => {
      if (event.type === 'session.state_changed' || event.type === 'session.removed')
        onMemberChanged(this.fanoutDeps(), event.data.sessionId);
    });
    await removeStaleScratches(join(this.options.home, 'attempts')).catch((error: unknown) =>
      log.warn('stale attempt scratches not removed', { error: errorMessage(error) }),
    );
    await resumePicks(this.pickDeps());
    for (const group of this.store.inStates(['running'])) await step(this.fanoutDeps(), group.id);
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** N sessions at one prompt (any mix of agents), as one group. `taskId` is only stored and shown. */
  async startBestOf(request: z.output<typeof BestOfRequest>): Promise<AttemptGroupView> {
    const planned = await planBestOf(this.options.sessions, request);
    const started = await startMembers(this.options.sessions, 'best_of', request, planned);
    const group = this.record(started, request, null);
    return this.compare(group.id, { runChecks: false });
  }

  async startFanout(request: z.output<typeof FanoutRequest>): Promise<FanoutView> {
    const planned = await planFanout(this.options.sessions, request);
    const started = await startMembers(this.options.sessions, 'fanout', request, planned);
    const group = this.record(started, request, request.batch);
    // A batch may have ended already (a fast agent): its retry or the finish is not missed.
    await step(this.fanoutDeps(), group.id);
    return this.fanout(group.id);
  }

  list(filter: { kind?: AttemptKind | undefined; project?: string | undefined } = {}): GroupList {
    const groups = this.store
      .list({ kind: filter.kind })
      .filter(
        (g) =>
          filter.project === undefined ||
          g.project_name === filter.project ||
          g.project_root === filter.project,
      );
    return {
      groups: groups.map((g) =>
        summaryOf(g, new Set(this.store.members(g.id).map((m) => m.session_id)).size),
      ),
    };
  }

  /** A best-of group's comparison; with `runChecks`, the repository's check is run on attempts not checked yet. */
  async compare(ref: string, options: { runChecks: boolean }): Promise<AttemptGroupView> {
    const group = this.resolve(ref, 'best_of');
    const members = this.store.members(group.id);
    const siblings = new Set(members.map((m) => m.session_id));
    const context: CompareContext = {
      home: this.options.home,
      groupId: group.id,
      env: this.options.env,
      siblings,
      radar: this.options.conflicts,
      runChecks: options.runChecks,
      now: this.clock(),
      inFlight: this.inFlight,
    };
    const attempts = [];
    // One at a time: checks are whole test suites, and the machine has other work.
    for (const member of members) {
      const session = this.options.sessions.get(member.session_id);
      if (session === undefined) continue;
      const { view, saved } = await compareAttempt(member, session, context);
      if (session.removed_at === null) this.store.saveSummary(session.id, saved);
      attempts.push({ ...view, winner: group.state === 'landed' && group.picked_session_id === session.id });
    }
    return { ...summaryOf(group, attempts.length), attempts };
  }

  async pick(sessionRef: string, groupRef: string | undefined, cwd: string | undefined): Promise<PickView> {
    const session = this.options.sessions.resolve(sessionRef, cwd);
    const named = groupRef === undefined ? undefined : this.resolve(groupRef, 'best_of');
    const group = groupOfPick(this.pickDeps(), session, named);
    const { mergeId, seq } = await pick(this.pickDeps(), group, session, cwd);
    return {
      group: summaryOf(this.store.get(group.id) ?? group, this.store.members(group.id).length),
      mergeId,
      seq,
    };
  }

  /** What a fan-out batch resumed after a usage limit is told of its finished items (decision 301). */
  continueNote(sessionId: string): string | undefined {
    return continueNote(this.store, this.options.sessions, sessionId);
  }

  async fanout(ref: string): Promise<FanoutView> {
    return fanoutReport(this.fanoutDeps(), this.resolve(ref, 'fanout'));
  }

  /** A group by id or unique id prefix, of `kind`. */
  resolve(ref: string, kind: AttemptKind): AttemptGroupWithProject {
    const exact = this.store.get(ref);
    if (exact !== undefined && exact.kind === kind) return exact;
    const found = ref.length < 3 ? [] : this.store.byPrefix(ref).filter((g) => g.kind === kind);
    if (found.length === 1) return found[0]!;
    if (found.length > 1)
      throw new AmbiguousGroupError(
        ref,
        found.map((g) => g.id),
      );
    const other = exact ?? this.store.byPrefix(ref)[0];
    if (other !== undefined && ref.length >= 3) {
      throw new InvalidInputError(
        `${other.id} is a ${other.kind === 'fanout' ? 'fan-out (`baton fanout show`)' : 'best-of group (`baton attempts show`)'}, not a ${kind === 'fanout' ? 'fan-out' : 'best-of group'}.`,
      );
    }
    throw new AttemptGroupNotFoundError(ref, kind);
  }

  private record(
    started: StartedGroup,
    request: { prompt: string; instructions?: string | undefined; taskId?: string | undefined },
    batchSize: number | null,
  ): AttemptGroupWithProject {
    const { id, kind, projectId, members } = started;
    const state = kind === 'fanout' ? 'running' : 'open';
    this.store.create(
      {
        id,
        kind,
        project_id: projectId,
        prompt: request.prompt,
        instructions: request.instructions ?? null,
        task_id: request.taskId ?? null,
        batch_size: batchSize,
        state,
      },
      members.map((m) => m.member),
    );
    const group = this.store.get(id)!;
    this.options.bus.publish(AttemptStarted, {
      groupId: id,
      project: group.project_name,
      taskId: group.task_id,
      kind,
      sessions: members.map(({ session }) => ({
        sessionId: session.id,
        name: session.name,
        agent: session.agent,
      })),
    });
    return group;
  }

  private fanoutDeps() {
    return { store: this.store, sessions: this.options.sessions, bus: this.options.bus };
  }

  private pickDeps() {
    return {
      store: this.store,
      sessions: this.options.sessions,
      bus: this.options.bus,
      merges: this.options.merges,
      keepFigures: async (group: AttemptGroupWithProject) => {
        await this.compare(group.id, { runChecks: false });
      },
    };
  }
}
