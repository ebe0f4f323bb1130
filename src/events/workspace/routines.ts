/** Routines (src/routines): scheduled and triggered agents. */
import { z } from 'zod';
import { defineWorkspaceEvent } from './define.js';

const routineRef = { routineId: z.string(), routine: z.string(), project: z.string() };
/** What started (or would have started) a run: `schedule`, `missed`, `manual`, or a trigger such as `tag:v1.2`. */
const routineRun = { runId: z.number().int(), trigger: z.string() };

export const RoutineAdded = defineWorkspaceEvent(
  'routine.added',
  z.object({ ...routineRef, when: z.string(), nextRunAt: z.string().nullable() }),
);
export const RoutineChanged = defineWorkspaceEvent(
  'routine.changed',
  z.object({ ...routineRef, paused: z.boolean(), nextRunAt: z.string().nullable() }),
);
export const RoutineRemoved = defineWorkspaceEvent('routine.removed', z.object({ ...routineRef }));
export const RoutineFired = defineWorkspaceEvent(
  'routine.fired',
  z.object({
    ...routineRef,
    ...routineRun,
    dueAt: z.string().nullable(),
    sessionId: z.string(),
    sessionName: z.string(),
  }),
);
export const RoutineSkipped = defineWorkspaceEvent(
  'routine.skipped',
  z.object({ ...routineRef, ...routineRun, outcome: z.enum(['skipped', 'missed']), cause: z.string() }),
);
export const RoutineFinished = defineWorkspaceEvent(
  'routine.finished',
  z.object({
    ...routineRef,
    ...routineRun,
    outcome: z.enum(['findings', 'nothing', 'failed']),
    /** The finding's first lines, the failure's cause, or why there was nothing. */
    summary: z.string(),
    sessionId: z.string().nullable(),
    sessionName: z.string().nullable(),
    costUsd: z.number().nullable(),
  }),
);
