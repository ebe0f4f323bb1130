/**
 * The conflict radar: which live sessions will collide with each other and with their moving
 * base, before anyone merges — files, hunks, hot (the same lines, or a real merge conflict) or
 * soft (the same file, other lines), with the other side's diff. Shapes are in `api/conflicts.ts`,
 * events in `events/workspace/radar.ts` (`radar.*`).
 */
import type { WorkspaceBus } from '../bus/index.js';
import type { Db } from '../store/db.js';
import { radarEvents } from '../store/radar-events.js';
import { replay } from './events.js';
import { ConflictRadar, type RadarSessions } from './radar.js';
import type { OtherMachinesWork } from './others.js';
import { AgentTeller, type AgentMessenger } from './tell.js';
import { RadarWatch, type RadarWatchOptions, type SessionSignals } from './watch.js';

export { ConflictRadar, type RadarOptions, type RadarSessions } from './radar.js';
export { movingBase } from './jobs.js';
// Other machines' sessions, read through the workspace's peers (src/cluster/peers/snapshots.ts).
export type { ElsewhereRead, OtherMachinesWork, RemoteTracked } from './others.js';
export { fileLevel, pairLevel, sessionBadges } from './level.js';
export { AgentTeller, messageFor, ranges } from './tell.js';
export { GitRunner, DEFAULT_GIT_TIMEOUT_MS } from './git-runner.js';
export { RadarWatch, DEFAULT_DEBOUNCE_MS, DEFAULT_INTERVAL_MS, type Timers } from './watch.js';

/** What the supervisor hands the radar: the session manager has all of it. */
export type RadarHost = RadarSessions & AgentMessenger & SessionSignals & { bus: WorkspaceBus };

/**
 * The supervisor's radar, telling agents when their repository asks for it. `start` makes it pass
 * on session changes and periodically (the first pass at once); `close` stops that.
 */
export function createRadar(
  host: RadarHost,
  db: Db,
  options: RadarWatchOptions & { elsewhere?: OtherMachinesWork | undefined } = {},
): { radar: ConflictRadar; start: () => void; close: () => void } {
  const teller = new AgentTeller(host);
  const { elsewhere, ...timing } = options;
  const radar = new ConflictRadar({
    sessions: host,
    bus: host.bus,
    told: replay(radarEvents(db)),
    onPass: (turnedHot, current) => teller.afterPass(turnedHot, current),
    ...(elsewhere === undefined ? {} : { elsewhere }),
  });
  const watch = new RadarWatch(radar, timing);
  let unwatch: (() => void) | undefined;
  return {
    radar,
    start: () => {
      watch.start(host, host.bus);
      // Another machine's push changes what its sessions collide with here.
      unwatch = elsewhere?.onChange(() => watch.poke(null));
    },
    close: () => {
      unwatch?.();
      watch.close();
    },
  };
}
