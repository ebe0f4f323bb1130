/**
 * Disk use of a worktree, the way `du` counts it (allocated blocks, each inode once), split into
 * what the worktree owns and what it shares by hard link with another tree (link count > 1).
 * Reflinked extents cannot be told apart from owned ones without file system tools, so a
 * reflinked folder counts as owned here: the figure is an upper bound there.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function diskUse(dir: string, seen = new Set<number>()): { ownedBytes: number; sharedBytes: number } {
  let owned = 0;
  let shared = 0;
  const walk = (path: string): void => {
    let entries;
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(path, entry.name);
      const st = lstatSync(full);
      if (seen.has(st.ino)) continue;
      seen.add(st.ino);
      const bytes = st.blocks * 512;
      if (entry.isFile() && st.nlink > 1) shared += bytes;
      else owned += bytes;
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return { ownedBytes: owned, sharedBytes: shared };
}
