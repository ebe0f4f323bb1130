/**
 * Sharing a heavy git-ignored folder (node_modules, .venv) of the main checkout with a worktree
 * without duplicating its bytes. Per folder, the first that works on the file systems involved:
 *
 * - `reflink`: a copy-on-write clone (Btrfs, XFS with reflink, APFS, ZFS 2.2+). Independent
 *   files, no bytes duplicated until one side writes. Safest: a session's install never
 *   touches the main checkout.
 * - `hardlink`: the same files under a second name (any file system, same device only). No bytes
 *   duplicated; tools that rewrite files by replacing them (npm, pnpm, pip) leave the other
 *   side alone, but one that edits a file in place changes it for both.
 * - `symlink`: the worktree's folder is a link to the main checkout's. Works across devices;
 *   everything is shared, installs included.
 *
 * `auto` probes the file systems with one real file: a forced clone, then a hard link, then
 * falls back to a symlink. A mode named in the config is used as is, and fails clearly.
 */
import {
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

export type ShareMode = 'reflink' | 'hardlink' | 'symlink';

/** The first regular file under `dir`, breadth first, to probe with. */
function firstFile(dir: string): string | undefined {
  const queue = [dir];
  for (let seen = 0; queue.length > 0 && seen < 10_000; seen++) {
    const current = queue.shift()!;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isFile()) return path;
      if (entry.isDirectory()) queue.push(path);
    }
  }
  return undefined;
}

/** Which mode works from `source` to the folder `targetDir` lives in, tried with a real file. */
export function detectShareMode(source: string, targetDir: string): ShareMode {
  const probe = firstFile(source);
  if (probe === undefined) return 'symlink';
  mkdirSync(targetDir, { recursive: true });
  const scratch = join(targetDir, `.baton-share-probe-${process.pid}`);
  try {
    copyFileSync(probe, scratch, constants.COPYFILE_FICLONE_FORCE);
    return 'reflink';
  } catch {
    // No clones here; try a hard link.
  } finally {
    rmSync(scratch, { force: true });
  }
  try {
    linkSync(probe, scratch);
    return 'hardlink';
  } catch {
    return 'symlink';
  } finally {
    rmSync(scratch, { force: true });
  }
}

/** Recreates `source` at `target` with every file hard-linked; symbolic links are copied as links. */
function hardlinkTree(source: string, target: string): number {
  let files = 0;
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) files += hardlinkTree(from, to);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (entry.isFile()) {
      linkSync(from, to);
      files++;
    }
  }
  return files;
}

/** Shares `source` at `target` (which must not exist) in `mode`; `auto` detects it. Returns the mode used. */
export function shareFolder(source: string, target: string, mode: ShareMode | 'auto'): ShareMode {
  const used = mode === 'auto' ? detectShareMode(source, dirname(target)) : mode;
  mkdirSync(dirname(target), { recursive: true });
  try {
    if (used === 'reflink')
      cpSync(source, target, {
        recursive: true,
        mode: constants.COPYFILE_FICLONE_FORCE,
        verbatimSymlinks: true,
        preserveTimestamps: true,
      });
    else if (used === 'hardlink') hardlinkTree(source, target);
    else symlinkSync(source, target, 'dir');
  } catch (error) {
    // Half a folder is worse than none: the setup command (npm ci) would trust it.
    if (existsSync(target) || isLink(target)) rmSync(target, { recursive: true, force: true });
    throw error;
  }
  return used;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
