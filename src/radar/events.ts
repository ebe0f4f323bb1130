/** What changed between two passes, told on the workspace bus: a pair found, changed or cleared. */
import type { Conflict } from '../api/conflicts.js';
import type { WorkspaceBus } from '../bus/index.js';
import { RadarConflictChanged, RadarConflictCleared, RadarConflictFound } from '../events/workspace.js';

function pairRef(c: Conflict): { key: string; project: string; a: { sessionId: string; name: string }; b: { sessionId: string | null; name: string } } {
  return {
    key: c.key,
    project: c.project,
    a: { sessionId: c.a.sessionId, name: c.a.name },
    b: c.b.kind === 'session' ? { sessionId: c.b.sessionId, name: c.b.name } : { sessionId: null, name: c.b.ref },
  };
}

const paths = (c: Conflict): string[] => c.files.map((f) => f.path);
const hotPaths = (c: Conflict): string => c.files.filter((f) => f.level === 'hot').map((f) => f.path).join('\0');

/**
 * Publishes the differences and returns the conflicts that turned hot (new and hot, or soft
 * before): the ones agents are told about. A pair whose files changed but not its level is
 * `changed` too, so a page shows the right files.
 */
export function publishChanges(bus: WorkspaceBus, previous: Map<string, Conflict>, next: Map<string, Conflict>, isLive: (sessionId: string) => boolean): Conflict[] {
  const turnedHot: Conflict[] = [];
  for (const [key, now] of next) {
    const before = previous.get(key);
    if (before === undefined) {
      bus.publish(RadarConflictFound, { ...pairRef(now), level: now.level, files: paths(now) });
      if (now.level === 'hot') turnedHot.push(now);
    } else if (before.level !== now.level || paths(before).join('\0') !== paths(now).join('\0') || hotPaths(before) !== hotPaths(now)) {
      bus.publish(RadarConflictChanged, { ...pairRef(now), level: now.level, previous: before.level, files: paths(now) });
      if (now.level === 'hot' && before.level !== 'hot') turnedHot.push(now);
    }
  }
  for (const [key, before] of previous) {
    if (next.has(key)) continue;
    const gone = !isLive(before.a.sessionId) || (before.b.kind === 'session' && !isLive(before.b.sessionId));
    bus.publish(RadarConflictCleared, { ...pairRef(before), previous: before.level, reason: gone ? 'removed' : 'resolved' });
  }
  return turnedHot;
}
