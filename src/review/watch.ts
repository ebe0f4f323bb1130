/**
 * Keeps a project's groups current while someone reviews it: when a session of a project whose
 * groups were asked for ends a turn (its state leaves the mid-turn ones) or is removed, the
 * groups are computed again, and `review.groups_changed` is published if they differ. Projects
 * nobody has looked at cost nothing. A recomputation asked for while one runs is run once after it.
 */
import type { WorkspaceBus } from '../bus/index.js';
import type { WorkspaceEvent } from '../events/workspace.js';

const MID_TURN = new Set(['queued', 'preparing', 'starting', 'working']);

export interface Refreshable {
  refresh(project: string): Promise<void>;
  watched(project: string): boolean;
}

export function watchGroups(
  bus: WorkspaceBus,
  review: Refreshable,
  onError: (error: unknown) => void,
): () => void {
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const refresh = (project: string): void => {
    if (running.has(project)) {
      again.add(project);
      return;
    }
    const run = review
      .refresh(project)
      .catch(onError)
      .finally(() => {
        running.delete(project);
        if (again.delete(project)) refresh(project);
      });
    running.set(project, run);
  };
  return bus.subscribe((event: WorkspaceEvent) => {
    const turnEnded = event.type === 'session.state_changed' && !MID_TURN.has(event.data.to);
    if ((turnEnded || event.type === 'session.removed') && review.watched(event.data.project))
      refresh(event.data.project);
  });
}
