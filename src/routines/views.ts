/** Rows as the API shows them. */
import type { z } from 'zod';
import type {
  FindingTriageView as TriageSchema,
  RoutineAddRequest as AddSchema,
  RoutineDetailView as DetailSchema,
  RoutineRunView as RunSchema,
  RoutineView as ViewSchema,
} from '../api/routines.js';
import type { RoutineSpec } from '../projects/index.js';
import type { RoutineRunRow, RoutineWithProject } from '../store/routines.js';
import { describeWhen } from './definitions.js';

/** A routine to add, its agent chosen (the server fills in the default one). */
export type RoutineAddRequest = Omit<z.output<typeof AddSchema>, 'spec'> & { spec: RoutineSpec };
export type RoutineView = z.output<typeof ViewSchema>;
export type RoutineDetailView = z.output<typeof DetailSchema>;
export type RoutineRunView = z.output<typeof RunSchema>;
export type FindingTriageView = z.output<typeof TriageSchema>;

export function routineView(routine: RoutineWithProject, last: RoutineRunRow | undefined): RoutineView {
  const spec = JSON.parse(routine.spec_json) as RoutineSpec;
  return {
    id: routine.id,
    name: routine.name,
    project: routine.project_name,
    projectRoot: routine.project_root,
    source: routine.source,
    paused: routine.paused === 1,
    when: describeWhen(spec),
    spec,
    nextRunAt: routine.paused === 1 ? null : routine.next_run_at,
    lastRun: last === undefined ? null : runView(last),
  };
}

export function runView(run: RoutineRunRow): RoutineRunView {
  return {
    id: run.id,
    trigger: run.trigger,
    dueAt: run.due_at,
    startedAt: run.started_at,
    finishedAt: run.finished_at,
    outcome: run.outcome,
    cause: run.cause,
    sessionId: run.session_id,
    sessionName: run.session_name,
    costUsd: run.cost_usd,
  };
}
