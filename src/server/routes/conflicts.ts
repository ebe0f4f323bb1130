/** The conflict radar: the last pass's conflicts, or a pass run now. */
import type { CONFLICTS } from '../../api/conflicts.js';
import { sessionBadges, type ConflictRadar } from '../../radar/index.js';
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
      return { badges: sessionBadges(radar.view().conflicts) };
    },
    'POST /api/conflicts/refresh': async ({ query, cwd }) => {
      // Checked first: a bad project or session is refused before a pass is paid for.
      radar.view(query, cwd);
      await radar.pass();
      return radar.view(query, cwd);
    },
  };
}
