/** The conflict radar (src/radar): conflicts between live sessions, and with their moving base. */
import { z } from 'zod';
import { defineWorkspaceEvent } from './define.js';

const radarPair = {
  /** `<idA>:<idB>` (ids sorted) or `<id>:base`. */
  key: z.string(),
  project: z.string(),
  a: z.object({ sessionId: z.string(), name: z.string() }),
  /** The other session, or the base branch (`sessionId` null, `name` the branch). */
  b: z.object({ sessionId: z.string().nullable(), name: z.string() }),
};
const radarLevel = z.enum(['hot', 'soft']);

/** Every file both sides change, and those of them that are hot. */
const radarFiles = { files: z.array(z.string()), hotFiles: z.array(z.string()) };

export const RadarConflictFound = defineWorkspaceEvent(
  'radar.conflict_found',
  z.object({ ...radarPair, level: radarLevel, ...radarFiles }),
);
export const RadarConflictChanged = defineWorkspaceEvent(
  'radar.conflict_changed',
  z.object({ ...radarPair, level: radarLevel, previous: radarLevel, ...radarFiles }),
);
export const RadarConflictCleared = defineWorkspaceEvent(
  'radar.conflict_cleared',
  z.object({ ...radarPair, previous: radarLevel, reason: z.enum(['resolved', 'removed']) }),
);
