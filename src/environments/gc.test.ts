import { describe, expect, it } from 'vitest';
import { pickForArchive, type GcCandidate } from './gc.js';

const now = new Date('2026-01-02T12:00:00Z');
const at = (hoursAgo: number): string => new Date(now.getTime() - hoursAgo * 3_600_000).toISOString();
const s = (name: string, hoursAgo: number, state = 'ready_for_review', pinned = false): GcCandidate => ({
  id: name,
  name,
  state,
  pinned,
  lastActivity: at(hoursAgo),
});

describe('the cleanup policy', () => {
  it('archives finished sessions idle past idleHours, never running or pinned ones', () => {
    const picked = pickForArchive(
      [
        s('old', 10),
        s('fresh', 1),
        s('busy', 50, 'working'),
        s('kept', 50, 'stopped', true),
        s('failed', 7, 'failed'),
      ],
      { idleHours: 6 },
      now,
    );
    expect(picked.map((p) => p.name)).toEqual(['old', 'failed']);
  });

  it('caps the worktrees per repository, oldest idle first', () => {
    const picked = pickForArchive(
      [s('a', 1), s('b', 3), s('c', 2), s('d', 0.5, 'working')],
      { maxWorktrees: 2 },
      now,
    );
    expect(picked.map((p) => p.name)).toEqual(['b', 'c']);
  });

  it('archives nothing without a policy', () => {
    expect(pickForArchive([s('a', 100)], {}, now)).toEqual([]);
  });
});
