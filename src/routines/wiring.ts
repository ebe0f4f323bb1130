/** The session manager and the radar as the ports routines use. */
import type { ConflictRadar } from '../radar/index.js';
import type { SessionManager } from '../sessions/manager.js';
import { diffStat } from '../worktrees/diffstat.js';
import type { ConflictSummary, RoutineSessions } from './ports.js';

export function routineSessions(manager: SessionManager): RoutineSessions {
  return {
    list: () => manager.list(),
    get: (id) => manager.get(id),
    dispatch: (request) => manager.dispatch(request),
    remove: (id) => manager.remove(id),
    lastMessage: (id) => {
      for (const event of manager.latestEvents(id, ['message.added'], 20)) if (event.type === 'message.added' && event.role === 'assistant') return event.text;
      return undefined;
    },
    changedFiles: async (id) => {
      const session = manager.get(id);
      return session === undefined ? 0 : (await diffStat(session.worktree, session.base_commit)).files.length;
    },
  };
}

export function radarConflicts(radar: ConflictRadar): () => ConflictSummary[] {
  return () =>
    radar.view().conflicts.map((c) => ({ a: c.a.name, b: c.b.kind === 'session' ? c.b.name : `${c.b.ref} (base)`, level: c.level, files: c.files.map((f) => f.path) }));
}
