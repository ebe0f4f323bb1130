/** The session manager and the radar as the ports routines use. */
import type { ConflictRadar } from '../radar/index.js';
import type { SessionManager } from '../sessions/index.js';
import { sessionDiffStat } from '../worktrees/index.js';
import type { TaskService } from '../tasks/index.js';
import type { ConflictSummary, RoutineSessions, RoutineTasks } from './ports.js';

export function routineSessions(manager: SessionManager): RoutineSessions {
  return {
    list: () => manager.list(),
    get: (id) => manager.get(id),
    dispatch: (request) => manager.dispatch(request),
    remove: (id) => manager.remove(id),
    lastMessage: (id) => {
      for (const event of manager.latestEvents(id, ['message.added'], 20))
        if (event.type === 'message.added' && event.role === 'assistant') return event.text;
      return undefined;
    },
    costOf: (session) => manager.costOf(session),
    changedFiles: async (id) => {
      const session = manager.get(id);
      return session === undefined ? 0 : (await sessionDiffStat(session)).files.length;
    },
  };
}

export function radarConflicts(radar: ConflictRadar): () => ConflictSummary[] {
  return () =>
    radar.view().conflicts.map((c) => ({
      a: c.a.name,
      b: c.b.kind === 'session' ? c.b.name : `${c.b.ref} (base)`,
      level: c.level,
      files: c.files.map((f) => f.path),
    }));
}

/** The tasks domain as routines use it: the brief lists a repository's tasks, the TODO sweep files new ones. */
export function routineTasks(service: TaskService): RoutineTasks {
  return {
    list: async (root) =>
      (await service.board({ project: root }, undefined)).columns.flatMap((c) =>
        c.tasks.map((t) => ({ id: String(t.id), title: t.title, column: c.column, tracker: t.tracker })),
      ),
    create: async (root, task) => {
      // Forced past scope overlaps: a found TODO is filed, not started; its start is checked as any other.
      const { task: card } = await service.add(
        {
          title: task.title,
          description: task.description,
          scope: task.scope,
          after: [],
          column: 'backlog',
          project: root,
          force: true,
        },
        undefined,
      );
      return { id: String(card.id), title: card.title, column: card.column, tracker: card.tracker };
    },
  };
}
