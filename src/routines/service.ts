/**
 * The routines domain's face to the supervisor: definitions, runs, the timer and the triggers,
 * wired once. Everything time-driven takes the clock it is given.
 */
import { timingSafeEqual } from 'node:crypto';
import type { WorkspaceBus } from '../bus/index.js';
import { errorMessage, ForbiddenError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { Db } from '../store/db.js';
import { RoutineStore, type RoutineRunRow, type RoutineWithProject } from '../store/routines.js';
import { SessionStore, type SessionWithProject } from '../store/sessions.js';
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

  constructor(options: RoutineServiceOptions) {
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
      if (run.session_id !== null)
        await this.runner.sessionSettled(this.session(run.session_id), run.session_id);
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
