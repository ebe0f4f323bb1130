/**
 * When a routine runs: croner computes the next time of a cron expression in a time zone. A bad
 * expression or zone is refused here, with its name, before anything is stored.
 */
import { Cron } from 'croner';
import { InvalidInputError } from '../shared/errors.js';

/** Checks a time zone by asking the platform's own tables (Intl), as croner does. */
export function checkTimeZone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    throw new InvalidInputError(
      `Unknown time zone "${tz}": give an IANA zone such as Europe/Berlin or America/New_York.`,
    );
  }
}

/** A schedule that cannot run is refused: a bad expression, a bad zone, or one that never fires again. */
export function checkSchedule(cron: string, tz: string | undefined, now: Date): Date {
  if (tz !== undefined) checkTimeZone(tz);
  let job: Cron;
  try {
    job = new Cron(cron, { paused: true, ...(tz === undefined ? {} : { timezone: tz }) });
  } catch (error) {
    throw new InvalidInputError(
      `Invalid cron expression "${cron}": ${(error as Error).message}. Five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1".`,
    );
  }
  const next = job.nextRun(now);
  job.stop();
  if (next === null)
    throw new InvalidInputError(`The cron expression "${cron}" never fires after ${now.toISOString()}.`);
  return next;
}

/** The first time strictly after `after`, or null when the schedule has ended. */
export function nextRun(cron: string, tz: string | undefined, after: Date): Date | null {
  const job = new Cron(cron, { paused: true, ...(tz === undefined ? {} : { timezone: tz }) });
  try {
    return job.nextRun(after);
  } finally {
    job.stop();
  }
}
