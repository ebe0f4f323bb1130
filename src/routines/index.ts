/**
 * Routines (decision 116, "A routine's run is an ordinary session"): scheduled and triggered agents
 * that run as ordinary Baton sessions with the workspace brief, report findings to the inbox, and
 * archive quiet runs.
 */
export { NOTHING_TO_REPORT, workspaceBrief } from './brief.js';
export { describeWhen, RoutineNotFoundError } from './definitions.js';
export {
  systemClock,
  type ConflictSummary,
  type RoutineClock,
  type RoutineSessions,
  type RoutineTasks,
  type TaskSummary,
} from './ports.js';
export { checkSchedule, checkTimeZone, nextRun } from './schedule.js';
export { RoutineService, type RoutineServiceOptions } from './service.js';
export { GRACE_MS, MAX_SLEEP_MS } from './timer.js';
export { oldTodos, TEMPLATES, templateNamed, todoKey } from './templates/index.js';
export type { RoutineDetailView, RoutineRunView, RoutineView } from './views.js';
// What routines see of sessions, tasks and the radar, wired by the supervisor.
export { radarConflicts, routineSessions, routineTasks } from './wiring.js';
