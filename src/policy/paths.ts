/** Where a path a command touches lies: in the worktree, the repository itself, a writable place, or outside. */
import { dirname } from 'node:path';
import { joinPath, UNKNOWN, type Word } from './shell.js';

export interface Place {
  /** The session's worktree: the agent works here and nowhere else. */
  worktree: string;
  home: string;
  /** Folders outside the worktree where writes and deletes are fine (temporary folders). */
  writable: readonly string[];
  /**
   * The user's folders around the session, wherever they lie (a repository under /tmp too): the
   * main checkout, the git folder every worktree shares, the other worktrees, Baton's state
   * folder. Deleting one, a folder holding one, or anything inside one is never the agent's.
   */
  userPlaces?: readonly UserPlace[] | undefined;
  /** The disk, when the gate may look: temporary folders hold no checkout, scripts are read. */
  disk?: Disk | undefined;
  /** Symbolic links a command earlier in the same call makes (`ln -s /repo l; rm -rf l/src`): link → target. */
  links?: ReadonlyMap<string, string> | undefined;
}

export interface UserPlace {
  path: string;
  /** What it is, for the reason a verdict gives: `the main checkout`. */
  what: string;
}

/** What the gate may look up on the disk (context.ts reads the real one; the corpus has a fake). */
export interface Disk {
  /**
   * A git checkout (a folder with `.git`) at, above (up to `stop`) or below `path`: its folder;
   * `too-large` when the folder is too large to search; undefined when there is none.
   */
  checkoutAt(path: string, stop: string): { at: string } | 'too-large' | undefined;
  /** A script file an agent runs, to judge what it does (scripts.ts). */
  script(path: string): ScriptFile;
  /** Where a symbolic link at `path` points (its text, as `readlink` gives it); undefined when it is none. */
  link?(path: string): string | undefined;
}

/**
 * A script file as the gate finds it: its text, `trusted` when the repository holds it unchanged
 * since the session began (the user's own script), `binary` for a compiled program (not read), or
 * why it cannot be read (`missing` when there is no such file).
 */
export type ScriptFile =
  | { text: string }
  /** Its text too, when read: the scripts it runs may be the agent's (decision 177). */
  | { trusted: true; text?: string }
  | { binary: true }
  | { unreadable: string };

export type Where = 'inside' | 'worktree' | 'repository' | 'writable' | 'user' | 'outside' | 'unknown';

/** The absolute path a word names from `cwd`, or undefined when it is only known at run time. */
export function absolute(word: Word, cwd: string | undefined): string | undefined {
  if (word.dynamic || cwd === undefined) return undefined;
  return joinPath(cwd, word.text);
}

/**
 * Where the path a word names lies; a pattern (`*.o`, `/*`) lies where its fixed folder does, one
 * level down. `follow`: the command acts on what a link at the path points to (a write does; a
 * delete or move acts on the link itself, unless the path ends in `/`).
 */
export function whereIs(word: Word, cwd: string | undefined, place: Place, follow = false): Where {
  if (cwd === undefined) return 'unknown';
  let text = word.text;
  follow ||= /(^|\/)\.\.?$|\/$/.test(text);
  let child = false;
  if (word.dynamic || word.glob) {
    // A variable or pattern after a fixed folder (`build/$X`, `dist/*`) stays below that folder.
    const cut = Math.min(
      ...[UNKNOWN, '*', '?', '['].map((c) => (text.includes(c) ? text.indexOf(c) : text.length)),
    );
    const slash = text.lastIndexOf('/', cut);
    if (word.dynamic && slash < 0) return 'unknown';
    if (word.dynamic && text.slice(cut).includes('..')) return 'unknown';
    text = slash < 0 ? '.' : text.slice(0, slash + 1) || '/';
    child = true;
  }
  return placeOf(joinPath(cwd, text), child, place, follow || child);
}

/** Where an absolute path lies; `child` when the path is only some entry below it. */
export function placeOf(path: string, child: boolean, place: Place, follow = child): Where {
  const { worktree } = place;
  path = throughLinks(path, follow, place);
  if (path === worktree) return child ? 'inside' : 'worktree';
  if (within(path, worktree)) {
    const rel = path.slice(worktree.length + 1);
    return rel === '.git' || rel.startsWith('.git/') ? 'repository' : 'inside';
  }
  // A writable folder never covers the worktree's own folders above it, the home folder when it
  // is the broader of the two (a home under /tmp stays the home),
  // nor the worktree's siblings (other sessions' worktrees).
  if (userPlaceAt(path, place) !== undefined) return 'user';
  if (within(worktree, path) || within(path, dirname(worktree))) return 'outside';
  const inHome = path === place.home || within(path, place.home);
  const writable = place.writable.find(
    (w) => (within(path, w) || (child && path === w)) && (!inHome || within(w, place.home)),
  );
  if (writable === undefined) return 'outside';
  // A temporary folder is writable, but not across another repository or worktree kept there.
  const checkout = place.disk?.checkoutAt(path, writable);
  if (checkout === 'too-large') return 'unknown';
  return checkout === undefined ? 'writable' : 'outside';
}

/** The user's place a path is, holds, or lies in (the closest), if any. */
export function userPlaceAt(path: string, place: Place): UserPlace | undefined {
  return (place.userPlaces ?? []).find(
    (p) => path === p.path || within(path, p.path) || within(p.path, path),
  );
}

export function within(path: string, folder: string): boolean {
  return folder === '/' ? path !== '/' : path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}

/** Device files a write to is harmless. */
export const HARMLESS_DEVICES = new Set([
  '/dev/null',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
]);

/** A block device: a disk, a partition, a volume. */
export function isDisk(path: string): boolean {
  return /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper\/|loop|sr)/.test(path);
}

/** How many links one path is followed through, as the kernel's own bound does for loops. */
const MAX_HOPS = 8;

/**
 * The path as the kernel resolves it through the symbolic links the agent can make: in its
 * worktree or a writable folder, on the disk or earlier in the same call. `ln -s ~/repo l` then
 * `rm -rf l/src` deletes the user's `src` (decision 399, "A path is judged where its links
 * lead"). The last part is followed only when `followLast` (a write, a folder git or `cd` goes
 * into, a path ending in `/`): `rm -rf l` removes the link alone. Links elsewhere (a home or
 * temporary folder that is itself a link) are the machine's, not the agent's, and are kept.
 */
export function throughLinks(path: string, followLast: boolean, place: Place): string {
  if (place.links === undefined && place.disk?.link === undefined) return path;
  let current = path;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const next = firstLink(current, followLast, place);
    if (next === undefined) return current;
    current = next;
  }
  return current;
}

function firstLink(path: string, followLast: boolean, place: Place): string | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  let prefix = '';
  for (let i = 0; i < parts.length; i++) {
    prefix += `/${parts[i] ?? ''}`;
    if (i === parts.length - 1 && !followLast) return undefined;
    const agents = within(prefix, place.worktree) || place.writable.some((w) => within(prefix, w));
    if (!agents) continue;
    const target = place.links?.get(prefix) ?? place.disk?.link?.(prefix);
    if (target === undefined) continue;
    const resolved = joinPath(dirname(prefix), target);
    const rest = parts.slice(i + 1).join('/');
    return rest === '' ? resolved : joinPath(resolved, rest);
  }
  return undefined;
}
