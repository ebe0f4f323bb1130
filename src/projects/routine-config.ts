/**
 * One routine's definition (decision 116, "A routine's run is an ordinary session"), the same whether
 * it comes from `baton routine add` or from the `routines` section of `.baton/config.json`: when it
 * runs (a cron schedule in a time zone, or a trigger), which agent runs it, and what it is told (a
 * shipped template, a prompt, or a prompt file in the repository). The cron expression and the time
 * zone are checked where they are used (src/routines/schedule.ts), so a bad one is named there.
 */
import { z } from 'zod';
import { AGENT_IDS, PERMISSION_MODES } from '../events/vocabulary.js';

/** What can start a run besides the clock. */
export const ROUTINE_TRIGGERS = ['tag', 'session.completed', 'merge.landed', 'task.moved', 'http'] as const;
export type RoutineTrigger = (typeof ROUTINE_TRIGGERS)[number];

const RoutineFields = z.object({
  /** Five fields (or six, seconds first), as cron has them. */
  cron: z.string().trim().min(1).max(200).optional(),
  /** An IANA time zone (`Europe/Berlin`); unset, the machine's. Only with `cron`. */
  tz: z.string().trim().min(1).max(100).optional(),
  /** A trigger instead of a schedule. */
  on: z.enum(ROUTINE_TRIGGERS).optional(),
  agent: z.enum(AGENT_IDS),
  model: z.string().min(1).max(200).optional(),
  permissionMode: z.enum(PERMISSION_MODES).optional(),
  /** A template Baton ships (`baton routine templates`). */
  template: z.string().min(1).max(100).optional(),
  prompt: z.string().min(1).max(100_000).optional(),
  /** A Markdown file in the repository, read at every run (so edits apply to the next one). */
  promptFile: z.string().min(1).max(1000).optional(),
  /** A template's own settings, e.g. `{ "days": 30 }` for the TODO sweep. */
  options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** A run missed while Baton was stopped or the machine slept fires once on return (default), or is only recorded. */
  catchUp: z.boolean().optional(),
  /** Agent-specific dispatch options (the scripted agent's script, for instance). */
  agentOptions: z.record(z.string(), z.unknown()).optional(),
});

function checkRoutine(spec: Omit<z.infer<typeof RoutineFields>, 'agent'>, ctx: z.RefinementCtx): void {
  const when = [spec.cron, spec.on].filter((v) => v !== undefined).length;
  if (when !== 1)
    ctx.addIssue({
      code: 'custom',
      path: ['cron'],
      message: 'give exactly one of "cron" (a schedule) and "on" (a trigger)',
    });
  if (spec.tz !== undefined && spec.cron === undefined)
    ctx.addIssue({ code: 'custom', path: ['tz'], message: 'a time zone goes with "cron" only' });
  const what = [spec.template, spec.prompt, spec.promptFile].filter((v) => v !== undefined).length;
  if (what !== 1)
    ctx.addIssue({
      code: 'custom',
      path: ['prompt'],
      message: 'give exactly one of "template", "prompt" and "promptFile"',
    });
}

export const RoutineSpec = RoutineFields.strict().superRefine(checkRoutine);
export type RoutineSpec = z.infer<typeof RoutineSpec>;

/** A routine as `baton routine add` sends it: no agent named means the dispatch default (`baton config set agent`). */
export const NewRoutineSpec = RoutineFields.extend({ agent: z.enum(AGENT_IDS).optional() })
  .strict()
  .superRefine(checkRoutine);
export type NewRoutineSpec = z.infer<typeof NewRoutineSpec>;

/** The `routines` section of `.baton/config.json`: routine name → definition. */
export const RoutinesSection = z.record(z.string(), RoutineSpec);
