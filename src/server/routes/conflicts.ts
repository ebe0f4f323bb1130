/** The conflict radar: the last pass's conflicts, or a pass run now. */
import type { CONFLICTS, Conflict, ConflictBadge } from '../../api/conflicts.js';
import type { ConflictRadar } from '../../radar/index.js';
import type { Handlers } from './mount.js';

export function conflictHandlers(radar: ConflictRadar): Handlers<typeof CONFLICTS> {
  return {
    'GET /api/conflicts': async ({ query, cwd }) => {
      // Before the first pass there is nothing to show yet: run it rather than answer "none".
      if (!radar.ready) await radar.pass();
      return radar.view(query, cwd);
    },
    'GET /api/conflicts/badges': async () => {
      if (!radar.ready) await radar.pass();
      return { badges: badges(radar.view().conflicts) };
    },
    'POST /api/conflicts/refresh': async ({ query, cwd }) => {
      // Checked first: a bad project or session is refused before a pass is paid for.
      radar.view(query, cwd);
      await radar.pass();
      return radar.view(query, cwd);
    },
  };
}

/** Per session: hot if any of its conflicts is, and the others named (hot first, as the conflicts come). */
export function badges(conflicts: Conflict[]): Record<string, ConflictBadge> {
  const out: Record<string, ConflictBadge> = {};
  const add = (id: string, name: string, level: Conflict['level'], base: boolean): void => {
    const badge = (out[id] ??= { level, with: [] });
    if (level === 'hot') badge.level = 'hot';
    badge.with.push({ name, level, base });
  };
  for (const c of conflicts) {
    if (c.b.kind === 'session') {
      add(c.a.sessionId, c.b.name, c.level, false);
      add(c.b.sessionId, c.a.name, c.level, false);
    } else add(c.a.sessionId, c.b.ref, c.level, true);
  }
  return out;
}
