/**
 * What a session changed, file by file, with line counts: its whole work (committed, staged,
 * unstaged and untracked) snapshotted as one tree and compared with its base in one `git diff`.
 */
import { existsSync } from 'node:fs';
import { gitOut } from './git.js';
import { snapshotWork } from './snapshot.js';

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

export async function diffStat(worktree: string, baseCommit: string): Promise<DiffStat> {
  if (!existsSync(worktree)) return EMPTY_STAT;
  const { tree } = await snapshotWork(worktree);
  const [numstat, names] = await Promise.all([
    gitOut(worktree, ['diff', '--no-renames', '--no-ext-diff', '--numstat', '-z', baseCommit, tree, '--']),
    gitOut(worktree, ['diff', '--no-renames', '--no-ext-diff', '--name-status', '-z', baseCommit, tree, '--']),
  ]);
  return parseStat(numstat, names);
}

/** Parses `--numstat -z` (`adds\tdels\tpath\0`) and `--name-status -z` (`S\0path\0`) for the same diff. */
export function parseStat(numstat: string, names: string): DiffStat {
  const status = new Map<string, string>();
  const parts = names.split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) status.set(parts[i + 1] ?? '', (parts[i] ?? '?').charAt(0));
  const files: FileStat[] = [];
  let additions = 0;
  let deletions = 0;
  for (const record of numstat.split('\0')) {
    const match = /^(-|\d+)\t(-|\d+)\t(.+)$/s.exec(record);
    if (match === null) continue;
    const [, added = '-', deleted = '-', path = ''] = match;
    const binary = added === '-';
    const file = { path, status: status.get(path) ?? 'M', additions: binary ? 0 : Number(added), deletions: binary ? 0 : Number(deleted), binary };
    additions += file.additions;
    deletions += file.deletions;
    files.push(file);
  }
  return { files, additions, deletions };
}
