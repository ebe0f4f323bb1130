/**
 * A session's work brought back from the shared remote into a new worktree of this clone (on
 * another machine, or after the first one's disk was lost): its branch at the pushed commit, and
 * its snapshot's tree laid over it as uncommitted work, as it was at the session's last turn end.
 * By session id, the snapshot's trailers name the branch; by name, the branch alone comes back
 * (a session whose work was all committed has no snapshot).
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { RestoreView } from '../api/sync.js';
import { remoteUrl } from '../merge/index.js';
import { DEFAULT_SYNC_REMOTE, loadRepoConfig } from '../projects/index.js';
import { sessionNameProblem } from '../sessions/index.js';
import { InvalidInputError, RemoteSessionNotFoundError, SessionStateError } from '../shared/errors.js';
import { createWorktree, findRepository, git, gitOut } from '../worktrees/index.js';
import { remoteBranchRef, remoteSnapshotRef } from './push.js';

const LOCAL = { timeoutMs: 30_000 };
const NETWORK = { timeoutMs: 300_000 };

export async function restoreSession(input: {
  cwd: string;
  session: string;
  path?: string | undefined;
  remote?: string | undefined;
}): Promise<RestoreView> {
  const repo = (await findRepository(input.cwd)).root;
  const remote = input.remote ?? loadRepoConfig(repo).sync?.remote ?? DEFAULT_SYNC_REMOTE;
  await remoteUrl(repo, remote, 'sync', LOCAL.timeoutMs);
  const ref = input.session;
  const valid = await git(repo, ['check-ref-format', remoteSnapshotRef(ref)], { okExitCodes: [1], ...LOCAL });
  if (ref.startsWith('-') || valid.exitCode !== 0 || sessionNameProblem(ref) !== undefined)
    throw new InvalidInputError(`"${ref}" is not a session id or name (it cannot be part of a git ref).`, {
      session: ref,
    });

  const snapshotRef = remoteSnapshotRef(ref);
  const branchRef = remoteBranchRef(ref);
  const listed = await gitOut(repo, ['ls-remote', '--', remote, snapshotRef, branchRef], NETWORK);
  const has = (wanted: string): boolean => listed.split('\n').some((line) => line.split('\t')[1] === wanted);

  let name: string;
  let commit: string;
  let snapshot: string | null = null;
  if (has(snapshotRef)) {
    // Kept under refs/baton/ here too, so the restored work has a name until it is committed.
    const local = `refs/baton/restored/${ref}`;
    await git(repo, ['fetch', '--quiet', '--no-tags', '--', remote, `+${snapshotRef}:${local}`], NETWORK);
    snapshot = await gitOut(repo, ['rev-parse', `${local}^{commit}`], LOCAL);
    name = await trailer(repo, snapshot, 'Baton-Name');
    if (name === '')
      throw new InvalidInputError(
        `${snapshotRef} on ${remote} is not a Baton snapshot (its commit has no Baton-Name trailer).`,
        { session: ref },
      );
    // Anyone who can push wrote this trailer; it becomes a branch and a folder only as a valid session name.
    const problem = sessionNameProblem(name) ?? (await refProblem(repo, `refs/heads/baton/${name}`));
    if (problem !== undefined) {
      throw new InvalidInputError(
        `${snapshotRef} on ${remote} has a Baton-Name trailer "${name}" that is not a session name (${problem}); nothing was restored. Restore it by hand under a name you choose (docs/multi-machine.md shows how, under baton sync restore).`,
        { session: ref, trailer: 'Baton-Name', name },
      );
    }
    // The snapshot's parent is the branch tip it was taken on: the two were pushed together.
    commit = await gitOut(repo, ['rev-parse', `${snapshot}^1`], LOCAL);
  } else if (has(branchRef)) {
    name = ref;
    const local = `refs/baton/restored/branch/${ref}`;
    await git(repo, ['fetch', '--quiet', '--no-tags', '--', remote, `+${branchRef}:${local}`], NETWORK);
    commit = await gitOut(repo, ['rev-parse', `${local}^{commit}`], LOCAL);
  } else {
    throw new RemoteSessionNotFoundError(ref, remote);
  }

  const branch = `baton/${name}`;
  const path = input.path ?? join(dirname(repo), `${basename(repo)}-${name}`);
  if (!isAbsolute(path))
    throw new InvalidInputError(`The path "${path}" must be absolute (the CLI makes it so).`, { path });
  if (existsSync(path))
    throw new SessionStateError(`${path} already exists; give another folder with --path.`, { path });
  const existing = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
    okExitCodes: [1],
    ...LOCAL,
  });
  const tip = existing.stdout.trim();
  if (existing.exitCode === 0 && tip !== commit) {
    throw new SessionStateError(
      `This clone already has a branch ${branch} at ${tip.slice(0, 10)}, not the pushed ${commit.slice(0, 10)}; rename or delete it (\`git branch -m ${branch} <new name>\`), then restore again.`,
      { branch },
    );
  }
  await createWorktree({ repo, path, branch, baseCommit: commit, existingBranch: existing.exitCode === 0 });
  const uncommittedFiles = snapshot === null ? [] : await layOver(path, snapshot);
  return { remote, branch, commit, path, snapshotCommit: snapshot, uncommittedFiles };
}

/** The snapshot's tree in the worktree's files, its index left at HEAD: the work shows as uncommitted, as it was. */
async function layOver(worktree: string, snapshot: string): Promise<string[]> {
  await git(worktree, ['read-tree', '-m', '-u', 'HEAD', `${snapshot}^{tree}`], LOCAL);
  await git(worktree, ['reset', '--quiet'], LOCAL);
  const changed = await gitOut(
    worktree,
    ['diff', '--name-only', '--no-renames', 'HEAD', snapshot, '--'],
    LOCAL,
  );
  return changed.split('\n').filter(Boolean);
}

async function refProblem(repo: string, ref: string): Promise<string | undefined> {
  const checked = await git(repo, ['check-ref-format', ref], { okExitCodes: [1], ...LOCAL });
  return checked.exitCode === 0 ? undefined : `git refuses ${ref} as a branch`;
}

async function trailer(repo: string, commit: string, key: string): Promise<string> {
  return gitOut(
    repo,
    ['log', '-1', `--format=%(trailers:key=${key},valueonly,separator=%x20)`, commit, '--'],
    LOCAL,
  );
}
