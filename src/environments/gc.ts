/**
 * The cleanup policy (`.baton/config.json` → `cleanup`): which finished worktrees `baton gc`
 * archives. Only sessions with no running agent (ready for review, completed, failed, stopped)
 * and not pinned are candidates. Idle ones past `idleHours` go; then, while a repository has
 * more worktrees than `maxWorktrees`, the oldest idle go first. A pure function of the sessions
 * and a clock, so it is tested without waiting.
 */
export interface GcCandidate {
  id: string;
  name: string;
  state: string;
  pinned: boolean;
  /** When the session last did anything (its last event, else its creation). */
  lastActivity: string;
}

export interface GcPolicy {
  idleHours?: number | undefined;
  maxWorktrees?: number | undefined;
}

const FINISHED = new Set(['ready_for_review', 'completed', 'failed', 'stopped']);

export interface GcDecision {
  id: string;
  name: string;
  why: string;
}

/** The sessions of one repository (all with worktrees) to archive, oldest idle first. */
export function pickForArchive(sessions: readonly GcCandidate[], policy: GcPolicy, now: Date): GcDecision[] {
  const idle = sessions
    .filter((s) => FINISHED.has(s.state) && !s.pinned)
    .sort((a, b) => a.lastActivity.localeCompare(b.lastActivity));
  const picked = new Map<string, GcDecision>();
  const hours = (s: GcCandidate): number => (now.getTime() - Date.parse(s.lastActivity)) / 3_600_000;
  if (policy.idleHours !== undefined) {
    for (const s of idle)
      if (hours(s) >= policy.idleHours)
        picked.set(s.id, {
          id: s.id,
          name: s.name,
          why: `${s.state}, idle ${hours(s).toFixed(1)} h (cleanup.idleHours ${policy.idleHours})`,
        });
  }
  if (policy.maxWorktrees !== undefined) {
    let over = sessions.length - picked.size - policy.maxWorktrees;
    for (const s of idle) {
      if (over <= 0) break;
      if (picked.has(s.id)) continue;
      picked.set(s.id, {
        id: s.id,
        name: s.name,
        why: `${sessions.length} worktrees, over cleanup.maxWorktrees ${policy.maxWorktrees}; idle ${hours(s).toFixed(1)} h`,
      });
      over--;
    }
  }
  return [...picked.values()];
}
