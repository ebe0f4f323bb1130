/**
 * Where a session's gate stands, read from the disk: the repository around the worktree (its
 * main checkout, the git folder every worktree shares, the other worktrees — read again on each
 * verdict, as sessions come and go), Baton's state folder, and the Disk the rules may look at:
 * whether a temporary folder holds a checkout, and the scripts an agent runs. The session host
 * and `baton policy test` build the same context here (decision 157, "The gate knows the
 * repository").
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { anchoredGitDirs } from '../worktrees/index.js';
import { within, type Disk, type ScriptFile, type UserPlace } from './paths.js';

/** A script larger than this is not read: it asks. */
export const MAX_SCRIPT_BYTES = 1024 * 1024;
/** How much of a temporary folder is searched for a checkout before the gate says it cannot tell. */
export const SEARCH_LIMIT = { depth: 6, folders: 4000 };

export interface Surroundings {
  /** The session's worktree (the checkout the gate judges from). */
  worktree: string;
  /** Baton's state folder. */
  state?: string | undefined;
  /** The commit scripts are compared with: unchanged since it, a script is the user's and not read. */
  baseCommit?: string | undefined;
}

/** The user's places around a worktree, read now. */
export type PlacesReader = () => UserPlace[];

/** Reads the repository around a worktree once; the returned function lists the places on each call. */
export function userPlaces(surroundings: Surroundings): PlacesReader {
  const { worktree, state } = surroundings;
  const facts = repositoryFacts(worktree);
  const own = new Set([worktree, safeRealpath(worktree)]);
  return () => {
    const places: UserPlace[] = [];
    const add = (path: string | undefined, what: string): void => {
      if (path === undefined) return;
      for (const p of new Set([path, safeRealpath(path)])) if (!own.has(p)) places.push({ path: p, what });
    };
    if (facts !== undefined) {
      add(facts.mainCheckout, "the repository's main checkout");
      add(facts.commonDir, "the repository's git folder, shared by every worktree");
      for (const other of otherWorktrees(facts.commonDir)) add(other, 'another worktree of the repository');
    }
    add(state, "Baton's state folder");
    return places;
  };
}

interface RepositoryFacts {
  commonDir: string;
  mainCheckout: string | undefined;
}

/**
 * For a worktree Baton recorded, git is told its folders from the records, not from the `.git`
 * file the agent can rewrite to name a repository of its making (decision 201): the places the
 * gate guards stay the user's real ones.
 */
function repositoryFacts(worktree: string): RepositoryFacts | undefined {
  const out = spawnSync('git', ['-C', worktree, 'rev-parse', '--path-format=absolute', '--git-common-dir'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...anchoredGitDirs(worktree) },
  });
  const commonDir = out.status === 0 ? out.stdout.trim() : '';
  if (commonDir === '') return undefined;
  const mainCheckout = commonDir.endsWith('/.git') ? dirname(commonDir) : undefined;
  return { commonDir, mainCheckout };
}

/** Every linked worktree git knows of: `<common>/worktrees/<name>/gitdir` names its `.git` file. */
function otherWorktrees(commonDir: string): string[] {
  const folder = join(commonDir, 'worktrees');
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      const gitdir = readFileSync(join(folder, name, 'gitdir'), 'utf8').trim();
      return gitdir === '' ? [] : [dirname(gitdir)];
    } catch {
      return [];
    }
  });
}

/** The real disk, for a session whose worktree is `worktree`. */
export function realDisk(surroundings: Surroundings): Disk {
  return {
    checkoutAt: (path, stop) => checkoutAt(path, stop),
    script: (path) => readScriptFile(path, surroundings),
    link: (path) => {
      try {
        return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

function checkoutAt(path: string, stop: string): { at: string } | 'too-large' | undefined {
  // The path itself, or a folder above it up to the temporary folder, is a checkout.
  for (let dir = path; dir !== stop && within(dir, stop); dir = dirname(dir))
    if (existsSync(join(dir, '.git'))) return { at: dir };
  // A folder below it is: searched breadth first, within a bound.
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isDirectory()) return undefined;
  let level = [path];
  let seen = 0;
  for (let depth = 0; depth < SEARCH_LIMIT.depth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.name === '.git' && dir !== path) return { at: dir };
        if (!entry.isDirectory() || entry.name === 'node_modules') continue;
        if (++seen > SEARCH_LIMIT.folders) return 'too-large';
        next.push(join(dir, entry.name));
      }
    }
    level = next;
  }
  return level.length > 0 ? 'too-large' : undefined;
}

function readScriptFile(path: string, surroundings: Surroundings): ScriptFile {
  let size: number;
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return { unreadable: 'missing' };
    if (stat.isSymbolicLink()) return readScriptFile(realpathSync(path), surroundings);
    if (!stat.isFile()) return { unreadable: 'not a file' };
    size = stat.size;
  } catch (error) {
    return { unreadable: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
  if (size > MAX_SCRIPT_BYTES) return { unreadable: `${size} bytes, more than the gate reads` };
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    return { unreadable: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
  if (content.subarray(0, 8000).includes(0)) return { binary: true };
  if (unchangedSinceBase(path, content, surroundings))
    return { trusted: true, text: content.toString('utf8') };
  return { text: content.toString('utf8') };
}

/** The repository holds this exact file at the session's base commit: the user's script, not the agent's. */
function unchangedSinceBase(path: string, content: Buffer, surroundings: Surroundings): boolean {
  const { worktree, baseCommit } = surroundings;
  if (baseCommit === undefined || !within(path, worktree)) return false;
  const rel = relative(worktree, path);
  const out = spawnSync('git', ['-C', worktree, 'rev-parse', '-q', '--verify', `${baseCommit}:${rel}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...anchoredGitDirs(worktree) },
  });
  const blob = out.status === 0 ? out.stdout.trim() : '';
  if (blob === '') return false;
  const hash = createHash(blob.length === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${content.length}\0`);
  hash.update(content);
  return hash.digest('hex') === blob;
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
