/**
 * Tasks (decision 71, "Tasks are their own domain beside sessions"): work as a first-class object. A
 * task has a title, a description, a scope, a tracker reference, dependencies, the sessions that worked
 * on it, a review state, and decisions and notes kept as Markdown in the repository's `.baton/`. Its
 * card sits in one of six columns, moved by hand or by its sessions. Sessions started from it are told
 * its context; a task `--after` another waits, behind a scheduler gate, until the other lands. In a
 * shared workspace the tasks of a repository with a remote are the workspace's (`TaskShare`, decision
 * 147).
 */
import type { WorkspaceBus } from '../bus/index.js';
import type { Db } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { TaskStore } from '../store/tasks.js';
import { TaskService } from './service.js';
import type { TaskSessions } from './start.js';
import { TaskWatch } from './watch.js';

export { columnFromSessions } from './columns.js';
// The shared store keeps tasks too: it refuses a dependency cycle the same way (src/cluster/tasks.ts).
export { dependencyCycle } from './cycle.js';
export {
  DependencyCycleError,
  ScopeOverlapError,
  SharedTasksNotJoinedError,
  TaskAwaitedError,
  TaskFileError,
  TaskNotFoundError,
  TaskStartedError,
} from './errors.js';
export { TaskService } from './service.js';
export { contextFor, dispatchRequest, startTaskSessions, type Attempt, type TaskSessions } from './start.js';
export { DEPENDENCY_GATE, TaskWatch } from './watch.js';
// What the workspace's shared store of tasks is to this domain; SharedTasks (src/cluster/peers/tasks.ts) is it.
export type { Applied, LedgerNewTask, LedgerTask, TaskBody, TaskLedger, TaskShare } from './ledger.js';

/** The domain wired on the supervisor's database and session manager; `watch.start()` before sessions are scheduled. */
export function createTasks(
  db: Db,
  bus: WorkspaceBus,
  sessions: TaskSessions,
  clock?: () => Date,
  recheckMs?: number,
): { service: TaskService; watch: TaskWatch } {
  const service = new TaskService({
    tasks: new TaskStore(db),
    sessions: new SessionStore(db),
    bus,
    ...(clock === undefined ? {} : { clock }),
  });
  return { service, watch: new TaskWatch(service, sessions, bus, recheckMs) };
}
