/**
 * When scheduled routines fire. The next run time is stored before a run starts. The timer sleeps
 * at most a minute and then reads the wall clock again, because a machine that slept does not
 * advance Node's timers: a run found later than the grace period was missed, and fires once on
 * return (or is only recorded, when the routine's catch-up is off) — never once per missed time.
 */
import type { RoutineSpec } from '../projects/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { RoutineStore, RoutineWithProject } from '../store/routines.js';
import type { RoutineClock } from './ports.js';
import type { RoutineRunner } from './runs.js';
import { nextRun } from './schedule.js';

const log = createLogger('routines');

/** How late a run may start and still count as on time. */
export const GRACE_MS = 120_000;
/** The longest the timer sleeps before looking at the wall clock again. */
export const MAX_SLEEP_MS = 60_000;
/** Missed runs counted at most (a year of minutely runs is not worth counting to the end). */
const MAX_COUNTED = 10_000;

export class RoutineTimer {
  private handle: unknown;
  private ticking: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly store: RoutineStore,
    private readonly runner: RoutineRunner,
    private readonly clock: RoutineClock,
    /** Called on every tick (the tag watcher's fallback look). */
    private readonly onTick: () => void = () => undefined,
  ) {}

  /** Runs what is due now, then sleeps until the next due time (a minute at most). */
  tick(): Promise<void> {
    if (this.ticking !== undefined) return this.ticking;
    this.ticking = this.fireDue()
      .catch((error: unknown) => log.error('routine tick failed', { error: errorMessage(error) }))
      .finally(() => {
        this.ticking = undefined;
        this.schedule();
      });
    return this.ticking;
  }

  close(): void {
    this.closed = true;
    if (this.handle !== undefined) this.clock.clearTimer(this.handle);
  }

  private async fireDue(): Promise<void> {
    this.onTick();
    const now = this.clock.now();
    for (const routine of this.store.all()) {
      if (
        routine.paused === 1 ||
        routine.next_run_at === null ||
        Date.parse(routine.next_run_at) > now.getTime()
      )
        continue;
      await this.fireOne(routine, new Date(routine.next_run_at), now);
    }
  }

  private async fireOne(routine: RoutineWithProject, due: Date, now: Date): Promise<void> {
    const spec = JSON.parse(routine.spec_json) as RoutineSpec;
    if (spec.cron === undefined) return;
    // Stored with the run's record, in its transaction: a supervisor killed during the fire neither
    // repeats nor loses it (decision 174). Stored anyway when the fire failed before its record,
    // so a fault does not fire again on every tick.
    const next = nextRun(spec.cron, spec.tz, now);
    let stored = false;
    const recorded = (): void => {
      this.store.setNextRun(routine.id, next?.toISOString() ?? null);
      stored = true;
    };
    try {
      await this.fireLate(routine, spec, due, now, recorded);
    } finally {
      if (!stored) recorded();
    }
  }

  private async fireLate(
    routine: RoutineWithProject,
    spec: RoutineSpec,
    due: Date,
    now: Date,
    recorded: () => void,
  ): Promise<void> {
    if (now.getTime() - due.getTime() <= GRACE_MS) {
      await this.runner.fire(routine, { trigger: 'schedule', dueAt: due, recorded });
      return;
    }
    const { count, last } = missedTimes(spec, due, now);
    const why = `${count === MAX_COUNTED ? `${count}+` : count} run(s) due since ${due.toISOString()} were missed while Baton was stopped or the machine slept`;
    if (spec.catchUp === false) {
      this.runner.record(
        routine,
        { trigger: 'missed', dueAt: last, recorded },
        'missed',
        `${why}; catch-up is off, so none ran`,
      );
      return;
    }
    await this.runner.fire(routine, {
      trigger: 'missed',
      dueAt: last,
      note: `${why}; fired once on return`,
      recorded,
    });
  }

  private schedule(): void {
    if (this.closed) return;
    const now = this.clock.now().getTime();
    let sleep = MAX_SLEEP_MS;
    for (const routine of this.store.all()) {
      if (routine.paused === 1 || routine.next_run_at === null) continue;
      sleep = Math.min(sleep, Math.max(0, Date.parse(routine.next_run_at) - now));
    }
    if (this.handle !== undefined) this.clock.clearTimer(this.handle);
    this.handle = this.clock.setTimer(() => void this.tick(), sleep);
  }
}

/** How many times the schedule came due from `due` up to `now`, and the last of them. */
function missedTimes(spec: RoutineSpec, due: Date, now: Date): { count: number; last: Date } {
  let count = 1;
  let last = due;
  for (
    let at = nextRun(spec.cron!, spec.tz, due);
    at !== null && at.getTime() <= now.getTime() && count < MAX_COUNTED;
    at = nextRun(spec.cron!, spec.tz, at)
  ) {
    count++;
    last = at;
  }
  return { count, last };
}
