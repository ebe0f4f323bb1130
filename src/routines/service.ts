/**
 * The routines domain's face to the supervisor: definitions, runs, the timer and the triggers,
 * wired once. Everything time-driven takes the clock it is given.
 */
import { timingSafeEqual } from 'node:crypto';
import type { WorkspaceBus } from '../bus/index.js';
import { errorMessage, ForbiddenError, InvalidInputError, SessionStateError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { Db } from '../store/db.js';
import { RoutineStore, type RoutineRunRow, type RoutineWithProject } from '../store/routines.js';
import { SessionStore, type SessionWithProject } from '../store/sessions.js';
import { clip } from './brief.js';
import { RoutineDefinitions } from './definitions.js';
import {
  systemClock,
  type ConflictSummary,
  type RoutineClock,
  type RoutineSessions,
  type RoutineTasks,
} from './ports.js';
import { RoutineRunner, type RunnerOptions } from './runs.js';
import { RoutineTimer } from './timer.js';
import { RoutineTriggers } from './triggers.js';
import {
  routineView,
  runView,
  type FindingTriageView,
  type RoutineAddRequest,
  type RoutineDetailView,
  type RoutineRunView,
  type RoutineView,
} from './views.js';

const log = createLogger('routines');

export interface RoutineServiceOptions {
  db: Db;
  bus: WorkspaceBus;
  sessions: RoutineSessions;
  clock?: RoutineClock;
  tasks?: RoutineTasks | undefined;
  conflicts?: (() => ConflictSummary[]) | undefined;
  budgetHolds?: (() => string | undefined) | undefined;
  claimFire?: RunnerOptions['claimFire'];
}

export class RoutineService {
  readonly store: RoutineStore;
  private readonly definitions: RoutineDefinitions;
  private readonly runner: RoutineRunner;
  private readonly timer: RoutineTimer;
  private readonly triggers: RoutineTriggers;

  constructor(private readonly options: RoutineServiceOptions) {
    const clock = options.clock ?? systemClock;
    this.store = new RoutineStore(options.db);
    const projects = new SessionStore(options.db);
    this.definitions = new RoutineDefinitions({
      store: this.store,
      bus: options.bus,
      clock,
      projects: { ensure: (root) => projects.ensureProject(root), all: () => projects.projects() },
    });
    this.runner = new RoutineRunner({
      store: this.store,
      bus: options.bus,
      clock,
      sessions: options.sessions,
      tasks: options.tasks,
      conflicts: options.conflicts,
      budgetHolds: options.budgetHolds,
      claimFire: options.claimFire,
    });
    this.triggers = new RoutineTriggers(options.bus, this.store, this.runner, (id) =>
      options.sessions.get(id),
    );
    this.timer = new RoutineTimer(this.store, this.runner, clock, () => void this.triggers.checkTags());
    this.session = (id) => options.sessions.get(id);
  }

  private readonly session: (id: string) => SessionWithProject | undefined;

  /** Reads every repository's routines, settles runs whose sessions ended while Baton was away, and starts the clock. */
  async start(): Promise<void> {
    await this.definitions.syncAll((root, error) =>
      log.error('routines in .baton/config.json not loaded', { root, error: errorMessage(error) }),
    );
    for (const run of this.store.running()) {
      // A fire cut off after its dispatch, before the run knew its session: the session runs; adopt it.
      const sessionId = run.session_id ?? this.runner.adoptSession(run)?.id;
      if (sessionId !== undefined) await this.runner.sessionSettled(this.session(sessionId), sessionId);
      // A fire cut off before its session was made is over: nothing runs for it.
      else
        this.store.finishRun(run.id, 'failed', 'Baton stopped before its session started', null, new Date());
    }
    this.triggers.start();
    await this.triggers
      .refreshTagWatches()
      .catch((error: unknown) => log.warn('tag watch failed', { error: errorMessage(error) }));
    await this.timer.tick();
  }

  close(): void {
    this.timer.close();
    this.triggers.close();
  }

  async add(request: RoutineAddRequest): Promise<RoutineDetailView> {
    const routine = await this.definitions.add(request);
    await this.afterChange();
    return this.detail(routine);
  }

  async list(cwd: string | undefined): Promise<RoutineView[]> {
    if (cwd !== undefined) await this.syncHere(cwd);
    return this.store.all().map((r) => routineView(r, this.store.runs(r.id, 1)[0]));
  }

  async show(name: string, cwd: string | undefined): Promise<RoutineDetailView> {
    if (cwd !== undefined) await this.syncHere(cwd);
    return this.detail(await this.definitions.resolve(name, cwd));
  }

  async history(name: string, cwd: string | undefined, limit: number): Promise<RoutineRunView[]> {
    return this.store.runs((await this.definitions.resolve(name, cwd)).id, limit).map(runView);
  }

  async setPaused(name: string, cwd: string | undefined, paused: boolean): Promise<RoutineDetailView> {
    const routine = this.definitions.setPaused(await this.definitions.resolve(name, cwd), paused);
    await this.afterChange();
    return this.detail(routine);
  }

  async remove(name: string, cwd: string | undefined): Promise<RoutineView> {
    const routine = await this.definitions.resolve(name, cwd);
    if (routine.source === 'config')
      throw new ForbiddenError(`The routine "${name}" is defined in .baton/config.json; remove it there.`);
    const view = routineView(routine, this.store.runs(routine.id, 1)[0]);
    this.definitions.remove(routine);
    await this.afterChange();
    return view;
  }

  /** `baton routine run <name> --now`: a run now, whatever its schedule (paused routines too: the user asked). */
  async runNow(name: string, cwd: string | undefined): Promise<RoutineRunView> {
    return runView(await this.runner.fire(await this.definitions.resolve(name, cwd), { trigger: 'manual' }));
  }

  /** Whether a hook call's token is the routine's: checked from the headers, before its body is read (decision 331). */
  tokenMatches(id: string, token: string | undefined): boolean {
    const routine = this.store.get(id);
    return routine !== undefined && token !== undefined && sameSecret(token, routine.token);
  }

  /** A local HTTP call with the routine's own token (not the workspace's). */
  async hook(id: string, token: string | undefined, detail: Record<string, string>): Promise<RoutineRunView> {
    const routine = this.store.get(id);
    if (routine === undefined || token === undefined || !sameSecret(token, routine.token))
      throw new ForbiddenError('Unknown routine or wrong routine token.');
    if (routine.paused === 1)
      return runView(
        this.runner.record(routine, { trigger: 'http', detail }, 'skipped', 'the routine is paused'),
      );
    return runView(await this.runner.fire(routine, { trigger: 'http', detail }));
  }

  /**
   * What a person does with a run's findings in the inbox (decision 156): dismiss them, or file
   * them as a backlog task. Either way the run's session is archived (its work kept, as any
   * removal keeps it), which takes the finding off the inbox, and the run's record says what was done.
   */
  async triage(
    name: string,
    cwd: string | undefined,
    action: 'dismiss' | 'task',
    runId: number | undefined,
  ): Promise<FindingTriageView> {
    const routine = await this.definitions.resolve(name, cwd);
    const runs = this.store.runs(routine.id, 200);
    const run =
      runId === undefined ? runs.find((r) => r.outcome === 'findings') : runs.find((r) => r.id === runId);
    if (run === undefined)
      throw new InvalidInputError(
        runId === undefined
          ? `${routine.name} has no run with findings.`
          : `${routine.name} has no run #${runId}; see \`baton routine history ${routine.name}\`.`,
      );
    if (run.outcome !== 'findings')
      throw new InvalidInputError(
        `Run #${run.id} of ${routine.name} has no findings (it was ${run.outcome}).`,
      );
    const session = run.session_id === null ? undefined : this.options.sessions.get(run.session_id);
    if (session === undefined || session.removed_at !== null)
      throw new SessionStateError(
        `The findings of run #${run.id} of ${routine.name} were already dealt with (its session is archived).`,
      );
    let task: { id: string; title: string } | null = null;
    if (action === 'task') {
      if (this.options.tasks === undefined)
        throw new InvalidInputError('Tasks are not set up here, so a finding cannot be filed as one.');
      const finding = findingOf(run.cause);
      const card = await this.options.tasks.create(routine.project_root, {
        title: clip(`${routine.name}: ${finding.split('\n')[0] ?? ''}`, 100),
        description: `${finding}\n\n(Found by the routine ${routine.name}, run #${run.id}, session ${run.session_name ?? '?'}.)`,
        scope: [],
      });
      task = { id: card.id, title: card.title };
    }
    await this.options.sessions.remove(session.id);
    const at = (this.options.clock ?? systemClock).now().toISOString();
    this.store.noteRun(
      run.id,
      task === null ? `dismissed ${at}` : `filed as task ${task.id} (${task.title}) ${at}`,
    );
    return { run: runView(this.store.run(run.id) ?? run), task };
  }

  /** The timer, for tests and the bench: runs what is due now. */
  tick(): Promise<void> {
    return this.timer.tick();
  }

  private detail(routine: RoutineWithProject): RoutineDetailView {
    const runs: RoutineRunRow[] = this.store.runs(routine.id, 20);
    return { ...routineView(routine, runs[0]), token: routine.token, runs: runs.map(runView) };
  }

  private async syncHere(cwd: string): Promise<void> {
    const { findRepository } = await import('../worktrees/index.js');
    const root = await findRepository(cwd).then(
      (r) => r.root,
      () => undefined,
    );
    if (root !== undefined) await this.definitions.syncConfig(root);
    await this.afterChange();
  }

  private async afterChange(): Promise<void> {
    await this.triggers
      .refreshTagWatches()
      .catch((error: unknown) => log.warn('tag watch failed', { error: errorMessage(error) }));
    void this.timer.tick();
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The finding itself: a run's record without the lines added after it (dismissed, filed). */
function findingOf(cause: string | null): string {
  return (cause ?? '').trim() || '(no report)';
}
