/**
 * What a session changed, file by file, with line counts: its committed, staged and unstaged work
 * (one `git diff --raw --numstat <base>` against the files on disk) and its untracked files
 * (listed by git, their lines counted here). Two git processes, nothing written: cheap enough
 * for every card on the board.
 */
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { gitOut } from './git.js';

export interface FileStat {
  path: string;
  /** git's letter: A added, M modified, D deleted, T type changed. */
  status: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

export interface DiffStat {
  files: FileStat[];
  additions: number;
  deletions: number;
}

export const EMPTY_STAT: DiffStat = { files: [], additions: 0, deletions: 0 };

/** Untracked files past this are counted as files without reading their lines. */
const MAX_UNTRACKED_READ = 500;
const MAX_UNTRACKED_BYTES = 8 * 1024 * 1024;

export async function diffStat(worktree: string, baseCommit: string): Promise<DiffStat> {
  if (!existsSync(worktree)) return EMPTY_STAT;
  let tracked: string;
  let untracked: string;
  try {
    [tracked, untracked] = await Promise.all([
      gitOut(worktree, [
        'diff',
        '--no-renames',
        '--no-ext-diff',
        '--raw',
        '--numstat',
        '-z',
        baseCommit,
        '--',
      ]),
      gitOut(worktree, ['ls-files', '--others', '--exclude-standard', '-z']),
    ]);
  } catch (error) {
    // Removed while we read it: no work left to count.
    if (!existsSync(worktree)) return EMPTY_STAT;
    throw error;
  }
  const files = parseRawNumstat(tracked);
  const added = untracked.split('\0').filter(Boolean);
  const counted = await Promise.all(
    added.map((path, i) =>
      i < MAX_UNTRACKED_READ
        ? countLines(join(worktree, path))
        : Promise.resolve({ lines: 0, binary: false }),
    ),
  );
  added.forEach((path, i) => {
    const { lines, binary } = counted[i] ?? { lines: 0, binary: false };
    files.push({ path, status: 'A', additions: lines, deletions: 0, binary });
  });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, additions: sum(files, 'additions'), deletions: sum(files, 'deletions') };
}

/**
 * Where a session's own work starts (decision 148): its base commit, or, once its branch has taken
 * in later commits of its base (an agent's rebase onto it, or a merge of it), the merge base of its
 * head and its base branch — so work that landed on the base is never counted as the session's.
 * A base that is not a branch (`HEAD`, a commit) cannot move: the base commit. One git call.
 */
export async function forkPoint(
  worktree: string,
  session: { base_commit: string; base_ref: string },
): Promise<string> {
  if (session.base_ref === 'HEAD' || session.base_ref.startsWith('-') || !existsSync(worktree))
    return session.base_commit;
  try {
    const out = await gitOut(worktree, ['merge-base', 'HEAD', session.base_ref]);
    return out === '' ? session.base_commit : out;
  } catch {
    // The base branch gone, or no common history: the commit it started from.
    return session.base_commit;
  }
}

/** What a session changed, against its fork point rather than a base its branch has moved past. */
export async function sessionDiffStat(session: {
  worktree: string;
  base_commit: string;
  base_ref: string;
}): Promise<DiffStat> {
  return diffStat(session.worktree, await forkPoint(session.worktree, session));
}

/** Parses `git diff --raw --numstat -z`: raw records (`:modes ids S\0path\0`) then numstat records (`adds\tdels\tpath\0`). */
export function parseRawNumstat(output: string): FileStat[] {
  const tokens = output.split('\0');
  const status = new Map<string, string>();
  const files: FileStat[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    if (token.startsWith(':')) {
      status.set(tokens[i + 1] ?? '', token.slice(token.lastIndexOf(' ') + 1).charAt(0));
      i++;
      continue;
    }
    const match = /^(-|\d+)\t(-|\d+)\t(.+)$/s.exec(token);
    if (match === null) continue;
    const [, adds = '-', dels = '-', path = ''] = match;
    const binary = adds === '-';
    files.push({
      path,
      status: status.get(path) ?? 'M',
      additions: binary ? 0 : Number(adds),
      deletions: binary ? 0 : Number(dels),
      binary,
    });
  }
  return files;
}

/** Lines as git counts them for a new file (a last line without a newline counts); NUL in the first 8000 bytes means binary. */
async function countLines(path: string): Promise<{ lines: number; binary: boolean }> {
  try {
    const file = await open(path, 'r');
    try {
      const stats = await file.stat();
      const size = stats.size;
      if (!stats.isFile() || size > MAX_UNTRACKED_BYTES)
        return { lines: 0, binary: size > MAX_UNTRACKED_BYTES };
      const buffer = Buffer.alloc(size);
      await file.read(buffer, 0, size, 0);
      if (buffer.subarray(0, 8000).includes(0)) return { lines: 0, binary: true };
      let lines = 0;
      for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lines++;
      if (size > 0 && buffer[size - 1] !== 10) lines++;
      return { lines, binary: false };
    } finally {
      await file.close();
    }
  } catch {
    // Gone between listing and reading, or a folder (an untracked nested repository): a file without lines.
    return { lines: 0, binary: false };
  }
}

function sum(files: FileStat[], key: 'additions' | 'deletions'): number {
  return files.reduce((n, f) => n + f[key], 0);
}
