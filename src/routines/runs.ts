/**
 * A routine's runs: firing one (an ordinary Baton session started with the workspace brief),
 * skipping a fire while the last run still goes, and finishing a run when its session stops —
 * findings to the inbox, nothing archived quietly, a failure with its cause.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceBus } from '../bus/index.js';
import { RoutineFinished, RoutineFired, RoutineSkipped } from '../events/workspace.js';
import { loadRepoConfig, type RoutineSpec } from '../projects/index.js';
import { crashPoint } from '../shared/crash-points.js';
import { errorMessage, InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { RoutineRunRow, RoutineStore, RoutineWithProject } from '../store/routines.js';
import type { SessionWithProject } from '../store/sessions.js';
import { clip, NOTHING_TO_REPORT, workspaceBrief } from './brief.js';
import type { ConflictSummary, RoutineClock, RoutineSessions, RoutineTasks } from './ports.js';
import { templateNamed, type Prepared, type TemplateContext } from './templates/index.js';

const log = createLogger('routines');

/** Session states in which a run has ended (its session no longer works). */
const ENDED = new Set(['ready_for_review', 'completed', 'failed', 'stopped']);

export interface RunnerOptions {
  store: RoutineStore;
  bus: WorkspaceBus;
  clock: RoutineClock;
  sessions: RoutineSessions;
  tasks?: RoutineTasks | undefined;
  conflicts?: (() => ConflictSummary[]) | undefined;
  /** Why no new work may start now (a day or window budget spent), from the watchdog. */
  budgetHolds?: (() => string | undefined) | undefined;
  /**
   * With a shared store: claims a fire of a routine read from a repository's config, which every
   * machine with a checkout of it reads too; answers the machine that runs it when it is not this one.
   */
  claimFire?: ((root: string, routine: string, fireKey: string) => Promise<string | undefined>) | undefined;
}

export interface Fire {
  trigger: string;
  dueAt?: Date | undefined;
  detail?: Record<string, string> | undefined;
  /** Said in the run's record (e.g. "3 runs missed while Baton was stopped"). */
  note?: string | undefined;
  /**
   * Written in the transaction that records the run (the schedule's next due time): a kill can
   * then neither lose the fire (next time stored, no record) nor repeat it (record, old next time).
   */
  recorded?: (() => void) | undefined;
}

export class RoutineRunner {
  /** Fires in progress (between the overlap check and the session's start), by routine. */
  private readonly firing = new Set<string>();
  /** Runs being finished now: the bus and the fire itself may both see a session end. */
  private readonly settling = new Set<number>();
  /** Runs whose session changed again while they were being settled. */
  private readonly askedAgain = new Set<number>();

  constructor(private readonly options: RunnerOptions) {}

  /** Starts a run of `routine` unless one is still going; returns the run's record. */
  async fire(routine: RoutineWithProject, fire: Fire): Promise<RoutineRunRow> {
    const { store, clock } = this.options;
    const now = clock.now();
    const ongoing = store.running().find((run) => run.routine_id === routine.id);
    if (ongoing !== undefined || this.firing.has(routine.id)) {
      const cause = `the previous run${ongoing?.session_name ? ` (session ${ongoing.session_name})` : ''} is still going`;
      return this.record(routine, fire, 'skipped', cause);
    }
    // A spent budget: the run is refused with the reason, not queued behind the budget unseen.
    const spent = this.options.budgetHolds?.();
    if (spent !== undefined) return this.record(routine, fire, 'skipped', `not run: ${spent}`);
    // Claimed after this machine's own reasons not to run: one that skips leaves the fire to another.
    this.firing.add(routine.id);
    const holder = await this.claimedElsewhere(routine, fire).catch((error: unknown) => {
      this.firing.delete(routine.id);
      throw error;
    });
    if (holder !== undefined) {
      this.firing.delete(routine.id);
      return this.record(
        routine,
        fire,
        'skipped',
        `run on machine ${holder}, which reads the same routine from its checkout of the repository`,
      );
    }
    const runId = store.transact(() => {
      fire.recorded?.();
      return store.addRun({
        routine_id: routine.id,
        trigger: fire.trigger,
        due_at: fire.dueAt?.toISOString() ?? null,
        started_at: now.toISOString(),
        outcome: 'running',
        cause: fire.note ?? null,
        session_id: null,
        session_name: null,
      });
    });
    crashPoint('routine.recorded');
    try {
      const spec = JSON.parse(routine.spec_json) as RoutineSpec;
      if (routine.source === 'config') stillInConfig(routine, spec);
      const context = this.context(routine, spec, fire);
      const prepared = await this.prepare(routine, spec, context);
      if ('nothing' in prepared)
        return this.finish(routine, runId, fire.trigger, 'nothing', prepared.nothing, undefined);
      const session = await this.options.sessions.dispatch({
        prompt: prepared.prompt,
        cwd: routine.project_root,
        name: `${routine.name}-${runId}`,
        agent: spec.agent,
        ...(spec.model === undefined ? {} : { model: spec.model }),
        permissionMode: spec.permissionMode ?? 'default',
        options: spec.agentOptions ?? {},
        instructions: workspaceBrief({
          routine: routine.name,
          projectRoot: routine.project_root,
          now,
          sessions: this.options.sessions,
          tasks: await this.options.tasks?.list(routine.project_root),
        }),
      });
      crashPoint('routine.dispatched');
      this.attach(routine, runId, fire.trigger, fire.dueAt?.toISOString() ?? null, session);
      crashPoint('routine.fired');
      log.info('routine fired', {
        routine: routine.name,
        run: runId,
        session: session.name,
        trigger: fire.trigger,
      });
      // A quick agent may have finished before its run knew its session: settle it now if so.
      await this.sessionSettled(this.options.sessions.get(session.id), session.id);
      return runOf(store, routine.id, runId);
    } catch (error) {
      log.warn('routine run failed to start', {
        routine: routine.name,
        run: runId,
        error: errorMessage(error),
      });
      return this.finish(
        routine,
        runId,
        fire.trigger,
        'failed',
        `could not start: ${errorMessage(error)}`,
        undefined,
      );
    } finally {
      this.firing.delete(routine.id);
    }
  }

  /** Ties the run to its session and says it fired, in one transaction. */
  private attach(
    routine: RoutineWithProject,
    runId: number,
    trigger: string,
    dueAt: string | null,
    session: { id: string; name: string },
  ): void {
    const { store, bus } = this.options;
    try {
      store.transact(() => {
        store.attachSession(runId, session.id, session.name);
        bus.publish(RoutineFired, {
          ...ref(routine),
          runId,
          trigger,
          dueAt,
          sessionId: session.id,
          sessionName: session.name,
        });
      });
    } catch (error) {
      bus.discard();
      throw error;
    }
    bus.release();
  }

  /**
   * A run cut off before it knew its session (recovery at start): its session, when the dispatch
   * had made one, is found by the name the run gave it and tied to it; undefined when none was made.
   */
  adoptSession(run: RoutineRunRow): SessionWithProject | undefined {
    const routine = this.options.store.get(run.routine_id);
    if (routine === undefined) return undefined;
    const name = `${routine.name}-${run.id}`;
    const session = this.options.sessions
      .list()
      .find((s) => s.name === name && s.project_root === routine.project_root);
    if (session === undefined) return undefined;
    this.attach(routine, run.id, run.trigger, run.due_at, session);
    log.info('routine run found its session after a restart', {
      routine: routine.name,
      run: run.id,
      session: name,
    });
    return session;
  }

  /**
   * The machine that runs this fire when it is another one. Only what every machine sees alike is
   * claimed: a routine of a repository's config, fired by its schedule (or its catch-up) for a
   * due time, or by a tag. A manual, HTTP or workspace-event fire happens on one machine only.
   */
  private async claimedElsewhere(routine: RoutineWithProject, fire: Fire): Promise<string | undefined> {
    if (this.options.claimFire === undefined || routine.source !== 'config') return undefined;
    const key =
      fire.dueAt !== undefined
        ? `due:${fire.dueAt.toISOString()}`
        : fire.trigger.startsWith('tag:')
          ? fire.trigger
          : undefined;
    return key === undefined ? undefined : this.options.claimFire(routine.project_root, routine.name, key);
  }

  /** A skipped or missed fire, recorded (and published) without a session. */
  record(
    routine: RoutineWithProject,
    fire: Fire,
    outcome: 'skipped' | 'missed',
    cause: string,
  ): RoutineRunRow {
    const { store, clock, bus } = this.options;
    const now = clock.now().toISOString();
    let runId: number;
    try {
      runId = store.transact(() => {
        fire.recorded?.();
        const id = store.addRun({
          routine_id: routine.id,
          trigger: fire.trigger,
          due_at: fire.dueAt?.toISOString() ?? null,
          started_at: now,
          finished_at: now,
          outcome,
          cause,
          session_id: null,
          session_name: null,
        });
        bus.publish(RoutineSkipped, { ...ref(routine), runId: id, trigger: fire.trigger, outcome, cause });
        return id;
      });
    } catch (error) {
      bus.discard();
      throw error;
    }
    bus.release();
    return runOf(store, routine.id, runId);
  }

  /**
   * Called when a session changed state or went away: ends its run if the session has stopped
   * working. A change that comes while the run is being looked at is looked at after it, with the
   * session as it is then (decision 156): a short turn ingested at once publishes "working" and
   * "ready for review" back to back, and dropping the second left the run `running` for ever.
   */
  async sessionSettled(session: SessionWithProject | undefined, sessionId: string): Promise<void> {
    const run = this.options.store.runOfSession(sessionId);
    if (run === undefined || run.outcome !== 'running') return;
    if (this.settling.has(run.id)) {
      this.askedAgain.add(run.id);
      return;
    }
    this.settling.add(run.id);
    try {
      await this.settle(run, session);
      while (this.askedAgain.delete(run.id)) {
        const now = this.options.store.run(run.id);
        if (now === undefined || now.outcome !== 'running') break;
        await this.settle(now, this.options.sessions.get(sessionId));
      }
    } finally {
      this.settling.delete(run.id);
      this.askedAgain.delete(run.id);
    }
  }

  private async settle(run: RoutineRunRow, session: SessionWithProject | undefined): Promise<void> {
    const routine = this.options.store.get(run.routine_id);
    if (routine === undefined) return;
    if (session === undefined || session.removed_at !== null) {
      this.finish(
        routine,
        run.id,
        run.trigger,
        'failed',
        'its session was removed before it finished',
        session,
      );
      return;
    }
    if (!ENDED.has(session.state)) return;
    if (session.state === 'failed' || session.state === 'stopped') {
      const reason =
        session.state_reason_json === null
          ? undefined
          : (JSON.parse(session.state_reason_json) as { message?: string }).message;
      this.finish(
        routine,
        run.id,
        run.trigger,
        'failed',
        `its session ${session.state === 'failed' ? 'failed' : 'was stopped'}${reason === undefined ? '' : `: ${reason}`}`,
        session,
      );
      return;
    }
    const report = this.options.sessions.lastMessage(session.id) ?? '';
    const changed = await this.options.sessions.changedFiles(session.id).catch(() => 0);
    if (report.trim().startsWith(NOTHING_TO_REPORT) && changed === 0) {
      this.finish(
        routine,
        run.id,
        run.trigger,
        'nothing',
        'the agent found nothing to report; the session was archived',
        session,
      );
      // Archived quietly: removed from the board, its work (none) kept as any removal keeps it.
      await this.options.sessions
        .remove(session.id)
        .catch((error: unknown) =>
          log.warn('archiving a quiet run failed', { session: session.name, error: errorMessage(error) }),
        );
      return;
    }
    const spec = JSON.parse(routine.spec_json) as RoutineSpec;
    let did: string | undefined;
    try {
      did =
        spec.template === undefined
          ? undefined
          : templateNamed(spec.template).finish?.(
              this.context(routine, spec, { trigger: run.trigger }),
              report,
            );
    } catch (error) {
      this.finish(
        routine,
        run.id,
        run.trigger,
        'failed',
        `its report could not be saved: ${errorMessage(error)}`,
        session,
      );
      return;
    }
    const summary = [did, clip(report.trim(), 1000) || `(no final message; ${changed} file(s) changed)`]
      .filter((part) => part !== undefined)
      .join('\n');
    this.finish(routine, run.id, run.trigger, 'findings', summary, session);
  }

  private finish(
    routine: RoutineWithProject,
    runId: number,
    trigger: string,
    outcome: 'findings' | 'nothing' | 'failed',
    summary: string,
    session: SessionWithProject | undefined,
  ): RoutineRunRow {
    const { store, clock, bus } = this.options;
    const cost = session === undefined ? null : (this.options.sessions.costOf?.(session) ?? session.cost_usd);
    // What the fire noted (missed runs, say) stays first in the record.
    const note = store.run(runId)?.cause;
    store.finishRun(runId, outcome, note ? `${note}\n${summary}` : summary, cost, clock.now());
    const run = runOf(store, routine.id, runId);
    bus.publish(RoutineFinished, {
      ...ref(routine),
      runId,
      trigger,
      outcome,
      summary,
      sessionId: run.session_id,
      sessionName: run.session_name,
      costUsd: cost,
    });
    return run;
  }

  private context(routine: RoutineWithProject, spec: RoutineSpec, fire: Fire): TemplateContext {
    const { store, clock } = this.options;
    return {
      routineId: routine.id,
      routine: routine.name,
      projectRoot: routine.project_root,
      now: clock.now(),
      tz: spec.tz,
      trigger: fire.trigger,
      detail: fire.detail ?? {},
      options: spec.options ?? {},
      sessions: this.options.sessions,
      tasks: this.options.tasks,
      conflicts: this.options.conflicts,
      see: (key) => store.see(routine.id, key, clock.now()),
      seen: (key) => store.seen(routine.id, key),
    };
  }

  private async prepare(
    routine: RoutineWithProject,
    spec: RoutineSpec,
    context: TemplateContext,
  ): Promise<Prepared> {
    if (spec.template !== undefined) return templateNamed(spec.template).prepare(context);
    if (spec.prompt !== undefined) return { prompt: withTrigger(spec.prompt, context) };
    const file = join(routine.project_root, spec.promptFile ?? '');
    if (!existsSync(file)) throw new Error(`its prompt file ${spec.promptFile ?? ''} does not exist`);
    return { prompt: withTrigger(readFileSync(file, 'utf8'), context) };
  }
}

/** A prompt of the user's, with what triggered it appended when a trigger brought something. */
function withTrigger(prompt: string, context: TemplateContext): string {
  const detail = Object.entries(context.detail);
  if (detail.length === 0) return prompt;
  return `${prompt}\n\n(Triggered by ${context.trigger}: ${detail.map(([k, v]) => `${k} ${v}`).join(', ')}.)`;
}

function runOf(store: RoutineStore, _routineId: string, runId: number): RoutineRunRow {
  const run = store.run(runId);
  if (run === undefined) throw new Error(`routine run ${runId} is gone`);
  return run;
}

export function ref(routine: RoutineWithProject): { routineId: string; routine: string; project: string } {
  return { routineId: routine.id, routine: routine.name, project: routine.project_name };
}

/**
 * A routine read from `.baton/config.json` runs only as the file holds it now (decision 178):
 * the dispatch then requires the file's trust, which covers its routines. Without this, a routine
 * stored while an untrusted config was checked out ran after the file changed or went away (a
 * config without commands needs no trust).
 */
function stillInConfig(routine: RoutineWithProject, spec: RoutineSpec): void {
  const current = loadRepoConfig(routine.project_root).routines?.[routine.name];
  if (current === undefined || canonical(current) !== canonical(spec))
    throw new InvalidInputError(
      `the routine "${routine.name}" was read from ${routine.project_root}/.baton/config.json, which no longer holds it as stored; nothing ran (Baton reads the file again at its next start)`,
    );
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
