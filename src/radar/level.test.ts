import { describe, expect, it } from 'vitest';
import type { Conflict, ConflictLevel } from '../api/conflicts.js';
import { sessionBadges } from './level.js';

const side = (name: string) => ({ kind: 'session' as const, sessionId: name, name, branch: `baton/${name}` });
const pair = (a: string, b: string, level: ConflictLevel) =>
  ({ key: `${a}:${b}`, level, a: side(a), b: side(b) }) as unknown as Conflict;

describe('session badges', () => {
  it('name the hot neighbours first, then each level by name, whatever order the pairs came in', () => {
    const pairs = [pair('far', 'right', 'soft'), pair('left', 'right', 'hot'), pair('far', 'left', 'soft')];
    for (const order of [pairs, [...pairs].reverse()]) {
      const badges = sessionBadges(order);
      expect(badges.far).toEqual({
        level: 'soft',
        with: [
          { name: 'left', level: 'soft', base: false },
          { name: 'right', level: 'soft', base: false },
        ],
      });
      expect(badges.left?.level).toBe('hot');
      expect(badges.left?.with.map((w) => w.name)).toEqual(['right', 'far']);
    }
  });
});
