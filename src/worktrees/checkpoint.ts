/**
 * Checkpoints: a session's work kept under `refs/baton/checkpoints/<session id>/<n>` before a
 * command that would discard it runs (decision 160). A checkpoint is the same snapshot `baton
 * diff` and `baton rm` make — the worktree's files, uncommitted and untracked included (ignored
 * ones left out), as a commit on the branch tip they sat on — so the work and the tip both come
 * back, whatever the command did to the branch.
 *
 * Taking one is synchronous: the session host takes it inside the gate's judgment, which every
 * agent's adapter awaits before the call runs, in every permission mode. It costs a handful of
 * git calls; unchanged work since the last checkpoint makes no new one.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { GitError, InvalidInputError } from '../shared/errors.js';
import { git, gitOut } from './git.js';
import { whileRewriting } from './rewrites.js';
import { guardedEnvSync, guardedArgs } from './git-guard.js';

export const CHECKPOINT_PREFIX = 'refs/baton/checkpoints/';
/** Each git call of a checkpoint stops after this long; the gate then asks the user instead. */
const TAKE_TIMEOUT_MS = 60_000;

export interface CheckpointInfo {
  /** Its number within the session: 1, 2, … */
  name: string;
  ref: string;
  commit: string;
  /** The branch tip the work sat on. */
  head: string;
  createdAt: string;
  /** The command it was taken before, or why. */
  subject: string;
}

export interface TakenCheckpoint {
  checkpoint: CheckpointInfo;
  /** False when the work was unchanged since the last one, which is answered instead. */
  fresh: boolean;
}

function gitSync(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  // Taken at an agent's command, in a repository the agent can write: guarded as `git()` is.
  const result = spawnSync('git', guardedArgs(args), {
    cwd,
    env: guardedEnvSync(cwd, args, { ...process.env, ...env }),
    encoding: 'utf8',
    timeout: TAKE_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error !== undefined)
    throw new GitError(`git ${args[0] ?? ''} could not run: ${result.error.message}`, args, '');
  if (result.status !== 0)
    throw new GitError(`git ${args[0] ?? ''} failed (exit ${String(result.status)})`, args, result.stderr);
  return result.stdout.trim();
}

/**
 * Keeps `worktree`'s work as the session's next checkpoint, before `why` runs. The worktree and
 * its index are not touched: the work is read through a private copy of the index.
 */
export function takeCheckpoint(worktree: string, sessionId: string, why: string): TakenCheckpoint {
  const [head = '', indexPath = ''] = gitSync(worktree, ['rev-parse', 'HEAD', '--git-path', 'index']).split(
    '\n',
  );
  const realIndex = isAbsolute(indexPath) ? indexPath : join(worktree, indexPath);
  const folder = mkdtempSync(join(tmpdir(), 'baton-checkpoint-'));
  let tree: string;
  try {
    const env = { GIT_INDEX_FILE: join(folder, 'index') };
    if (existsSync(realIndex)) {
      copyFileSync(realIndex, env.GIT_INDEX_FILE);
      // As snapshot.ts: the copy keeps the index's own time, so git's racy-clean check still sees recent edits.
      const { atime, mtimeMs } = statSync(realIndex);
      utimesSync(env.GIT_INDEX_FILE, atime, Math.floor(mtimeMs) / 1000);
    } else gitSync(worktree, ['read-tree', 'HEAD'], env);
    gitSync(worktree, ['add', '--all', '--', '.'], env);
    tree = gitSync(worktree, ['write-tree'], env);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const existing = listCheckpointsSync(worktree, sessionId);
  const last = existing[0];
  if (
    last !== undefined &&
    last.head === head &&
    gitSync(worktree, ['rev-parse', `${last.commit}^{tree}`]) === tree
  )
    return { checkpoint: last, fresh: false };
  const subject = `baton checkpoint before: ${why.replace(/\s+/g, ' ').slice(0, 200)}`;
  const commit = gitSync(worktree, [
    '-c',
    'user.name=Baton',
    '-c',
    'user.email=baton@localhost',
    'commit-tree',
    tree,
    '-p',
    head,
    '-m',
    subject,
  ]);
  const number = existing.reduce((max, c) => Math.max(max, Number(c.name) || 0), 0) + 1;
  const ref = `${CHECKPOINT_PREFIX}${sessionId}/${number}`;
  // Created only if absent: two hosts of one session never overwrite each other's checkpoint.
  gitSync(worktree, ['update-ref', ref, commit, '']);
  return {
    checkpoint: { name: String(number), ref, commit, head, createdAt: new Date().toISOString(), subject },
    fresh: true,
  };
}

const FORMAT = '--format=%(refname)%00%(objectname)%00%(parent)%00%(creatordate:iso-strict)%00%(subject)';

function parseList(out: string, sessionId: string): CheckpointInfo[] {
  if (out === '') return [];
  const prefix = `${CHECKPOINT_PREFIX}${sessionId}/`;
  return out
    .split('\n')
    .map((line) => {
      const [ref = '', commit = '', parent = '', createdAt = '', subject = ''] = line.split('\0');
      return {
        name: ref.slice(prefix.length),
        ref,
        commit,
        head: parent.split(' ')[0] ?? '',
        createdAt,
        subject,
      };
    })
    .sort((a, b) => Number(b.name) - Number(a.name));
}

function listCheckpointsSync(cwd: string, sessionId: string): CheckpointInfo[] {
  return parseList(gitSync(cwd, ['for-each-ref', FORMAT, `${CHECKPOINT_PREFIX}${sessionId}/`]), sessionId);
}

/** A session's checkpoints, newest first. */
export async function listCheckpoints(repo: string, sessionId: string): Promise<CheckpointInfo[]> {
  return parseList(
    await gitOut(repo, ['for-each-ref', FORMAT, `${CHECKPOINT_PREFIX}${sessionId}/`]),
    sessionId,
  );
}

/** Each git call of a restore stops after this long: a snapshot of the session waits on it (decision 463). */
const RESTORE_STEP_MS = 120_000;

/**
 * Writes checkpoint `name`'s files over `worktree`, uncommitted (the index and branch stay as
 * they are; files made since stay too). The work as it is now is checkpointed first, so a
 * restore is itself undone by restoring that one.
 */
export async function restoreCheckpoint(
  worktree: string,
  sessionId: string,
  name: string,
): Promise<{ checkpoint: CheckpointInfo; before: CheckpointInfo }> {
  const checkpoint = (await listCheckpoints(worktree, sessionId)).find((c) => c.name === name);
  if (checkpoint === undefined)
    throw new InvalidInputError(
      `The session has no checkpoint "${name}"; \`baton checkpoints <session>\` lists them.`,
    );
  const before = takeCheckpoint(worktree, sessionId, `restoring checkpoint ${name}`).checkpoint;
  const folder = mkdtempSync(join(tmpdir(), 'baton-checkpoint-'));
  // A snapshot waits while the files are written (decision 463): half of them would be neither.
  await whileRewriting(worktree, async () => {
    try {
      const env = { GIT_INDEX_FILE: join(folder, 'index') };
      await git(worktree, ['read-tree', `${checkpoint.commit}^{tree}`], { env, timeoutMs: RESTORE_STEP_MS });
      await git(worktree, ['checkout-index', '--all', '--force'], { env, timeoutMs: RESTORE_STEP_MS });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
  return { checkpoint, before };
}
