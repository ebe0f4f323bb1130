/**
 * Routines (decision 116, "A routine's run is an ordinary session"): scheduled and triggered agents.
 * Operations are in `src/routines`.
 */
import { z } from 'zod';
import { NewRoutineSpec, RoutineSpec } from '../projects/routine-config.js';
import { endpoint, type Table } from './endpoint.js';

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
