/** What a shipped routine template is: it prepares a run's prompt from the workspace, and may act on the run's report. */
import type { ConflictSummary, RoutineSessions, RoutineTasks } from '../ports.js';

export interface TemplateContext {
  routineId: string;
  routine: string;
  projectRoot: string;
  now: Date;
  /** The routine's time zone (its schedule's), for "yesterday" and file dates. */
  tz: string | undefined;
  /** `schedule`, `missed`, `manual`, `tag`, `session.completed`, … */
  trigger: string;
  /** What the trigger brought: `tag` for a tag, `session` for a session's name, … */
  detail: Record<string, string>;
  options: Record<string, string | number | boolean>;
  sessions: RoutineSessions;
  tasks: RoutineTasks | undefined;
  conflicts: (() => ConflictSummary[]) | undefined;
  /** Marks a key reported by this routine; true when it was not reported before. */
  see(key: string): boolean;
  seen(key: string): boolean;
}

/** A run to start with this prompt, or no session at all because there is nothing to do (said why). */
export type Prepared = { prompt: string } | { nothing: string };

export interface RoutineTemplate {
  readonly name: string;
  readonly description: string;
  /** The options it reads, with their defaults, for `baton routine templates`. */
  readonly options: Readonly<Record<string, string | number | boolean>>;
  prepare(ctx: TemplateContext): Promise<Prepared>;
  /** Acts on the run's final message (e.g. writes the digest note); returns what it did, for the run's record. */
  finish?(ctx: TemplateContext, report: string): string | undefined;
}

export function numberOption(ctx: TemplateContext, key: string, fallback: number): number {
  const value = ctx.options[key];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

export function stringOption(ctx: TemplateContext, key: string): string | undefined {
  const value = ctx.options[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `YYYY-MM-DD` of `date` in the time zone (the machine's when unset). */
export function localDate(date: Date, tz: string | undefined): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(date);
}
