/** The tasks domain's named errors; their codes map to HTTP statuses and exit codes in src/shared/errors.ts. */
import { BatonError } from '../shared/errors.js';

export class TaskNotFoundError extends BatonError {
  constructor(readonly ref: string) {
    super('not_found', `No task ${ref}. Run \`baton task ls\` to see the tasks.`, {
      ref,
      reason: 'task_not_found',
    });
  }
}

export class DependencyCycleError extends BatonError {
  constructor(readonly cycle: number[]) {
    super(
      'invalid_input',
      `That would make a cycle of dependencies: ${cycle.map((n) => `task ${n}`).join(' → ')}. A task cannot wait for itself.`,
      { cycle, reason: 'dependency_cycle' },
    );
  }
}

export class TaskStartedError extends BatonError {
  constructor(
    readonly taskId: number,
    readonly session: string,
    state: string,
  ) {
    super(
      'conflict',
      `Task ${taskId} is already being worked on by ${session} (${state.replace(/_/g, ' ')}). Finish or remove that session first (\`baton rm ${session}\`).`,
      { taskId, session, reason: 'task_started' },
    );
  }
}

export interface Overlap {
  taskId: number;
  title: string;
  /** Files of the repository both scopes take in (or, when none exist yet, the overlapping patterns). */
  files: string[];
}

/** A scope that overlaps a running task's: offer to run after it, or --force. */
export class ScopeOverlapError extends BatonError {
  constructor(readonly overlaps: Overlap[]) {
    const first = overlaps[0];
    const after = overlaps.map((o) => o.taskId).join(',');
    super(
      'conflict',
      `The scope overlaps ${overlaps.map((o) => `running task ${o.taskId} (${o.title}) on ${o.files.slice(0, 5).join(', ')}${o.files.length > 5 ? ', …' : ''}`).join('; ')}. ` +
        `Run it after ${first === undefined ? 'it' : `task ${first.taskId}`} with --after ${after}, or go ahead anyway with --force.`,
      { overlaps, after, reason: 'scope_overlap' },
    );
  }
}

/** A file of `.baton/decisions/` or `.baton/notes/` that a person broke by hand: named, never rewritten. */
export class TaskFileError extends BatonError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(
      'invalid_input',
      `${file}: ${problem}. Fix the file by hand (Baton never rewrites it); nothing else was changed.`,
      { file, reason: 'task_file' },
    );
  }
}

/** A task others still wait for (unlanded): it cannot be removed until their `--after` changes. */
export class TaskAwaitedError extends BatonError {
  constructor(
    readonly taskId: number,
    readonly waiting: readonly number[],
  ) {
    super(
      'conflict',
      `Task ${taskId} cannot go: ${waiting.map((id) => `task ${id}`).join(', ')} wait${waiting.length === 1 ? 's' : ''} for it. Change their --after first (\`baton task edit ${waiting[0] ?? ''} --after …\`).`,
      { taskId, waiting, reason: 'task_awaited' },
    );
  }
}

/** A write of a shared repository's task before this machine joined the shared store (it could not be reached at start). */
export class SharedTasksNotJoinedError extends BatonError {
  constructor() {
    super(
      'store_unreachable',
      'The shared store of tasks has not answered this machine since it started, so its tasks cannot be written yet; it is tried again when the store is back. Check `baton workers`, then try again.',
      { reason: 'tasks_not_joined' },
    );
  }
}
