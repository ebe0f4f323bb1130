/**
 * Folders for Unix sockets that only this user can create files in. A socket in a folder another
 * user controls can be replaced by theirs, and whatever Baton sends it (replies, approvals) goes
 * to them; so a socket folder outside BATON_HOME is checked before every bind and connect.
 */
import { lstatSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname, relative, isAbsolute } from 'node:path';
import { UnsafeSocketFolderError } from './errors.js';

/** Makes sure the folder a socket goes in exists and is the user's alone (home is trusted). */
export function ensureSocketFolder(home: string, socket: string): void {
  const folder = dirname(socket);
  if (isInside(home, folder)) {
    mkdirSync(folder, { recursive: true });
    return;
  }
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  checkPrivateFolder(folder);
}

/** Refuses a socket outside BATON_HOME whose folder is not the user's alone; a missing folder is fine (nothing listens there). */
export function checkSocketFolder(home: string, socket: string): void {
  const folder = dirname(socket);
  if (isInside(home, folder)) return;
  try {
    checkPrivateFolder(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * A real folder (not a symlink), owned by this user, with no permission for group or others,
 * in a parent where no one else can rename it away (their own, or sticky like /tmp).
 */
export function checkPrivateFolder(folder: string): void {
  const problem =
    folderProblem(lstatSync(folder)) ?? parentProblem(statSync(dirname(folder)), dirname(folder));
  if (problem !== undefined) throw new UnsafeSocketFolderError(folder, problem);
}

function folderProblem(stat: Stats): string | undefined {
  if (!stat.isDirectory())
    return stat.isSymbolicLink() ? 'it is a symbolic link, not a folder' : 'it is not a folder';
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `it belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o077) !== 0)
    return `other users have access to it (mode ${(stat.mode & 0o7777).toString(8)}, expected 700)`;
  return undefined;
}

function parentProblem(stat: Stats, parent: string): string | undefined {
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0)
    return `it is in ${parent}, which belongs to another user (uid ${stat.uid})`;
  const othersMayWrite = (stat.mode & 0o022) !== 0;
  const sticky = (stat.mode & 0o1000) !== 0;
  if (othersMayWrite && !sticky) return `other users may rename it away, as they can write to ${parent}`;
  return undefined;
}

function isInside(home: string, path: string): boolean {
  const rel = relative(home, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
