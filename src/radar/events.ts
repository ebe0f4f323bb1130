/**
 * What changed between two passes, told on the workspace bus: a pair found, changed or cleared.
 * What was last told is kept as `Known` records, which the radar's own events rebuild after a
 * restart, so a new supervisor announces only what changed while it was away.
 */
import type { Conflict, ConflictLevel } from '../api/conflicts.js';
import type { WorkspaceBus } from '../bus/index.js';
import { RadarConflictChanged, RadarConflictCleared, RadarConflictFound } from '../events/workspace.js';

export interface Known {
  key: string;
  project: string;
  a: { sessionId: string; name: string };
  b: { sessionId: string | null; name: string };
  level: ConflictLevel;
  files: string[];
  hotFiles: string[];
}

export function knownOf(c: Conflict): Known {
  return {
    key: c.key,
    project: c.project,
    a: { sessionId: c.a.sessionId, name: c.a.name },
    b:
      c.b.kind === 'session'
        ? { sessionId: c.b.sessionId, name: c.b.name }
        : { sessionId: null, name: c.b.ref },
    level: c.level,
    files: c.files.map((f) => f.path),
    hotFiles: c.files.filter((f) => f.level === 'hot').map((f) => f.path),
  };
}

/** The state the radar's stored events leave: each pair as last found or changed, cleared ones gone. */
export function replay(events: { type: string; data: unknown }[]): Map<string, Known> {
  const known = new Map<string, Known>();
  for (const { type, data } of events) {
    const d = data as Known & { previous?: string; reason?: string };
    if (type === 'radar.conflict_cleared') known.delete(d.key);
    else
      known.set(d.key, {
        key: d.key,
        project: d.project,
        a: d.a,
        b: d.b,
        level: d.level,
        files: d.files,
        hotFiles: d.hotFiles ?? [],
      });
  }
  return known;
}

const same = (x: string[], y: string[]): boolean => x.length === y.length && x.every((v, i) => v === y[i]);

/**
 * Publishes the differences and returns the conflicts that turned hot (new and hot, or soft
 * before): the ones agents are told about. A pair whose files changed but not its level is
 * `changed` too, so a page shows the right files.
 */
export function publishChanges(
  bus: WorkspaceBus,
  previous: Map<string, Known>,
  next: Map<string, Conflict>,
  isLive: (sessionId: string) => boolean,
): Conflict[] {
  const turnedHot: Conflict[] = [];
  for (const [key, conflict] of next) {
    const now = knownOf(conflict);
    const ref = { key, project: now.project, a: now.a, b: now.b };
    const before = previous.get(key);
    if (before === undefined) {
      bus.publish(RadarConflictFound, { ...ref, level: now.level, files: now.files, hotFiles: now.hotFiles });
      if (now.level === 'hot') turnedHot.push(conflict);
    } else if (
      before.level !== now.level ||
      !same(before.files, now.files) ||
      !same(before.hotFiles, now.hotFiles)
    ) {
      bus.publish(RadarConflictChanged, {
        ...ref,
        level: now.level,
        previous: before.level,
        files: now.files,
        hotFiles: now.hotFiles,
      });
      if (now.level === 'hot' && before.level !== 'hot') turnedHot.push(conflict);
    }
  }
  for (const [key, before] of previous) {
    if (next.has(key)) continue;
    const gone = !isLive(before.a.sessionId) || (before.b.sessionId !== null && !isLive(before.b.sessionId));
    bus.publish(RadarConflictCleared, {
      key,
      project: before.project,
      a: before.a,
      b: before.b,
      previous: before.level,
      reason: gone ? 'removed' : 'resolved',
    });
  }
  return turnedHot;
}
