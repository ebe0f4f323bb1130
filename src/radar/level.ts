/**
 * Hot or soft: the one place the radar decides how loud a collision is, for every view (the CLI,
 * the board, the page, the agents' messages, best-of-N and routine briefs read these answers).
 *
 * - A file is **hot** when both sides change the same lines (overlapping or adjacent ranges: git
 *   refuses those too) or git itself cannot merge it; **soft** when both change it, elsewhere.
 * - A pair is as hot as its hottest file.
 * - A session's badge is as hot as its hottest pair, and names every other side with that pair's
 *   own level, so a soft neighbour is not shown as hot because of a hot one.
 */
import type { Conflict, ConflictBadge, ConflictLevel } from '../api/conflicts.js';

export function fileLevel(file: { overlapping: boolean; mergeConflict: boolean | null }): ConflictLevel {
  return file.overlapping || file.mergeConflict === true ? 'hot' : 'soft';
}

export function pairLevel(files: { level: ConflictLevel }[]): ConflictLevel {
  return files.some((f) => f.level === 'hot') ? 'hot' : 'soft';
}

/**
 * Per session: its worst level, and the others (hot ones first, then by name, so the page and the
 * board name the same one first whatever order the pairs were judged in), each with its own
 * pair's level.
 */
export function sessionBadges(conflicts: Conflict[]): Record<string, ConflictBadge> {
  const out: Record<string, ConflictBadge> = {};
  const add = (id: string, name: string, level: ConflictLevel, base: boolean): void => {
    const badge = (out[id] ??= { level, with: [] });
    if (level === 'hot') badge.level = 'hot';
    badge.with.push({ name, level, base });
  };
  for (const c of conflicts) {
    if (c.b.kind === 'session') {
      add(c.a.sessionId, c.b.name, c.level, false);
      add(c.b.sessionId, c.a.name, c.level, false);
    } else add(c.a.sessionId, c.b.ref, c.level, true);
  }
  for (const badge of Object.values(out))
    badge.with.sort((x, y) =>
      x.level !== y.level ? (x.level === 'hot' ? -1 : 1) : x.name < y.name ? -1 : x.name > y.name ? 1 : 0,
    );
  return out;
}
