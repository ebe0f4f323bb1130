/**
 * Routines (decision 116, "A routine's run is an ordinary session"): scheduled and triggered agents.
 * Operations are in `src/routines`.
 */
import { z } from 'zod';
import { AGENT_NAME, AGENT_NAME_RULE, PERMISSION_MODES } from '../events/vocabulary.js';
import { endpoint, type Table } from './endpoint.js';

/**
 * One routine's definition (decision 116, "A routine's run is an ordinary session"), the same whether
 * it comes from `baton routine add` or from the `routines` section of `.baton/config.json`
 * (src/projects/routine-config.ts): when it runs (a cron schedule in a time zone, or a trigger),
 * which agent runs it, and what it is told (a shipped template, a prompt, or a prompt file in the
 * repository). The cron expression and the time zone are checked where they are used
 * (src/routines/schedule.ts), so a bad one is named there.
 */
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
  agent: z.string().regex(AGENT_NAME, AGENT_NAME_RULE),
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
export const NewRoutineSpec = RoutineFields.extend({
  agent: z.string().regex(AGENT_NAME, AGENT_NAME_RULE).optional(),
})
  .strict()
  .superRefine(checkRoutine);
export type NewRoutineSpec = z.infer<typeof NewRoutineSpec>;

export const RoutineAddRequest = z
  .object({
    name: z.string().min(1).max(100),
    /** Any folder inside the repository the routine belongs to. */
    cwd: z.string().min(1),
    /** Without an agent, the one a dispatch that names none gets. */
    spec: NewRoutineSpec,
    replace: z.boolean().optional(),
  })
  .strict();

export const RoutineRunView = z.object({
  id: z.number().int(),
  trigger: z.string(),
  dueAt: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  outcome: z.enum(['running', 'findings', 'nothing', 'failed', 'skipped', 'missed']),
  /** The finding's first lines, the failure's cause, why it was skipped or missed. */
  cause: z.string().nullable(),
  sessionId: z.string().nullable(),
  sessionName: z.string().nullable(),
  costUsd: z.number().nullable(),
});

export const RoutineView = z.object({
  id: z.string(),
  name: z.string(),
  project: z.string(),
  projectRoot: z.string(),
  source: z.enum(['cli', 'config']),
  paused: z.boolean(),
  /** `cron 0 9 * * 1 (Europe/Berlin)` or `on tag`. */
  when: z.string(),
  spec: RoutineSpec,
  nextRunAt: z.string().nullable(),
  lastRun: RoutineRunView.nullable(),
});

export const RoutineDetailView = RoutineView.extend({
  /** The routine's own secret for `POST /api/hooks/routines/:id` (the http trigger). */
  token: z.string(),
  runs: z.array(RoutineRunView),
});

export const RoutineTemplateView = z.object({
  name: z.string(),
  description: z.string(),
  options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

const CwdQuery = z.object({ cwd: z.string().optional() });
const HistoryQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Runs to list, newest first (default 50)'),
});
/** What to do with a routine's findings in the inbox (decision 156). */
export const FindingTriageRequest = z
  .object({
    action: z
      .enum(['dismiss', 'task'])
      .describe('dismiss: archive the run’s session; task: file the finding as a backlog task, then archive'),
    run: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Which run (default: the routine’s latest with findings)'),
  })
  .strict();
export const FindingTriageView = z.object({
  run: RoutineRunView,
  task: z.object({ id: z.string(), title: z.string() }).nullable(),
});

export const HookRequest = z
  .object({ detail: z.record(z.string(), z.string().max(1000)).optional() })
  .strict();

export const ROUTINES = {
  'GET /api/routines': endpoint({
    summary: 'Every routine, with its next run and its last',
    query: CwdQuery,
    response: z.object({ routines: z.array(RoutineView) }),
  }),
  'POST /api/routines': endpoint({
    summary: 'Add (or with replace, redefine) a routine',
    body: RoutineAddRequest,
    response: RoutineDetailView,
    status: 201,
  }),
  'GET /api/routines/templates': endpoint({
    summary: 'The routine templates Baton ships',
    response: z.object({ templates: z.array(RoutineTemplateView) }),
  }),
  'GET /api/routines/:name': endpoint({
    summary: 'One routine, its token and its latest runs',
    response: RoutineDetailView,
  }),
  'GET /api/routines/:name/history': endpoint({
    summary: 'A routine’s runs, newest first',
    query: HistoryQuery,
    response: z.object({ runs: z.array(RoutineRunView) }),
  }),
  'POST /api/routines/:name/run': endpoint({
    summary: 'Run a routine now',
    response: RoutineRunView,
    status: 201,
  }),
  'POST /api/routines/:name/findings': endpoint({
    summary:
      'Triage a run’s findings: dismiss them, or file them as a task; either way the run’s session is archived',
    body: FindingTriageRequest,
    response: FindingTriageView,
  }),
  'POST /api/routines/:name/pause': endpoint({
    summary: 'Pause a routine (no scheduled or triggered runs)',
    response: RoutineDetailView,
  }),
  'POST /api/routines/:name/resume': endpoint({
    summary: 'Resume a paused routine; its schedule starts again from now',
    response: RoutineDetailView,
  }),
  'DELETE /api/routines/:name': endpoint({
    summary: 'Remove a routine added from the command line (its history goes with it)',
    response: RoutineView,
    tokenOnly: true,
  }),
  'POST /api/hooks/routines/:id': endpoint({
    summary: 'Trigger a routine from a local script, with the routine’s own token as the bearer token',
    body: HookRequest,
    response: RoutineRunView,
    status: 201,
  }),
} satisfies Table;
