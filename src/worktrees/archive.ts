/**
 * Archived work: the snapshots `removeWorktree` keeps in `refs/baton/snapshots/<name>` (a
 * commit of the uncommitted work on top of the branch tip it sat on). Listing reads the refs;
 * restoring makes a worktree again on `baton/<name>` at that tip and brings its files to the
 * snapshot, uncommitted as they were. The snapshot ref itself is never deleted.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidInputError, SessionStateError } from '../shared/errors.js';
import { applyWork } from './carry.js';
import { git, gitOut } from './git.js';

export const SNAPSHOT_PREFIX = 'refs/baton/snapshots/';

export interface SnapshotInfo {
  name: string;
  ref: string;
  commit: string;
  /** The branch tip the work sat on. */
  parent: string;
  createdAt: string;
  subject: string;
}

export async function listSnapshots(repo: string): Promise<SnapshotInfo[]> {
  const out = await gitOut(repo, [
    'for-each-ref',
    '--sort=-creatordate',
    '--format=%(refname)%00%(objectname)%00%(parent)%00%(creatordate:iso-strict)%00%(subject)',
    SNAPSHOT_PREFIX,
  ]);
  if (out === '') return [];
  return out.split('\n').map((line) => {
    const [ref = '', commit = '', parent = '', createdAt = '', subject = ''] = line.split('\0');
    return {
      name: ref.slice(SNAPSHOT_PREFIX.length),
      ref,
      commit,
      parent: parent.split(' ')[0] ?? '',
      createdAt,
      subject,
    };
  });
}

/**
 * Restores snapshot `name` into `path` on `branch`. Refused when the path exists or the branch
 * exists somewhere other than the snapshot's parent (a name in use): nothing is made then.
 */
export async function restoreSnapshot(
  repo: string,
  name: string,
  path: string,
  branch: string,
): Promise<SnapshotInfo> {
  const snapshot = (await listSnapshots(repo)).find((s) => s.name === name);
  if (snapshot === undefined)
    throw new InvalidInputError(`No snapshot named "${name}" in ${repo}; \`baton snapshots\` lists them.`);
  if (existsSync(path))
    throw new SessionStateError(`${path} already exists; restore under another name with --as <name>.`);
  const existing = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
    okExitCodes: [1],
  });
  const tip = existing.stdout.trim();
  if (existing.exitCode === 0 && tip !== snapshot.parent) {
    throw new SessionStateError(
      `Branch ${branch} exists and has moved on since the snapshot; restore under another name with --as <name>.`,
    );
  }
  mkdirSync(dirname(path), { recursive: true });
  if (existing.exitCode === 0) await git(repo, ['worktree', 'add', '--quiet', path, branch]);
  else await git(repo, ['worktree', 'add', '--quiet', '-b', branch, path, snapshot.parent]);
  await applyWork(path, {
    head: snapshot.parent,
    tree: await gitOut(repo, ['rev-parse', `${snapshot.commit}^{tree}`]),
  });
  return snapshot;
}
