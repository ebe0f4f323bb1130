/**
 * Review capacity as a throttle (decision 153, "Needs-you reaches the user: the terminal, a
 * webhook, an ntfy topic; review capacity throttles dispatch"): review, not the number of agents,
 * is what limits parallel work, so the user may cap the work waiting for review — sessions ready
 * for review, or their changed lines — and new dispatches wait in the queue while the cap is
 * reached, saying why. A scheduler gate like the others: it is asked on every pass, and a pass
 * runs whenever a session leaves a mid-turn state (one landed, dismissed or removed frees room)
 * and whenever a size is measured.
 */
import type { Gate } from '../scheduler/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { ReviewQueue } from './work-sizes.js';

export interface ReviewCapacity {
  /** At most this many sessions ready for review before new ones wait. */
  sessions?: number | undefined;
  /** At most this many changed lines (added and deleted) ready for review before new sessions wait. */
  lines?: number | undefined;
}

export const REVIEW_CAPACITY_GATE = 'review capacity';

export function reviewCapacityGate(cap: ReviewCapacity, queue: () => ReviewQueue): Gate<SessionWithProject> {
  return {
    name: REVIEW_CAPACITY_GATE,
    holds: () => {
      const q = queue();
      const next = 'land, dismiss or remove one to go on';
      if (cap.sessions !== undefined && q.sessions >= cap.sessions)
        return `review capacity: ${q.sessions} ${q.sessions === 1 ? 'session waits' : 'sessions wait'} for review (cap ${cap.sessions}); ${next}`;
      const lines = q.additions + q.deletions;
      if (cap.lines !== undefined && lines >= cap.lines)
        return `review capacity: ${lines} changed lines wait for review (cap ${cap.lines}); ${next}`;
      return undefined;
    },
  };
}
