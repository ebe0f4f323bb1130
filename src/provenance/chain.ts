/**
 * A session's turns as a chain of commits in its repository: at each turn's end the worktree's
 * whole work (committed or not, untracked files too) is snapshotted as a tree and committed on
 * top of the previous turn's commit — the first on the session's base — under
 * `refs/baton/provenance/<session id>`, the turn's record in its message. `git blame` over that
 * chain then says which turn last wrote each line of the session's work, whatever the agent
 * committed, amended or left on disk (decision 250, "Agent blame from per-turn snapshots, kept
 * in git notes").
 */
import { snapshotWork, git, gitOut } from '../worktrees/index.js';
import { recordOf, turnMessage, type TurnRecord } from './record.js';

export const CHAIN_PREFIX = 'refs/baton/provenance/';
/** Each git call of a turn's snapshot stops after this long: a stuck git fails the record, never the session. */
const SNAPSHOT_TIMEOUT_MS = 60_000;

export function chainRef(sessionId: string): string {
  return `${CHAIN_PREFIX}${sessionId}`;
}

export async function chainTip(root: string, sessionId: string): Promise<string | undefined> {
  const found = await git(root, ['rev-parse', '--verify', '--quiet', `${chainRef(sessionId)}^{commit}`], {
    okExitCodes: [1],
  });
  return found.exitCode === 0 ? found.stdout.trim() : undefined;
}

/** Identity of turn commits: the session, so `git log` of the chain reads as who wrote what. */
function identity(record: TurnRecord): NodeJS.ProcessEnv {
  const who = `${record.name} (${record.agent}${record.model === null ? '' : `, ${record.model}`})`;
  return {
    GIT_AUTHOR_NAME: who,
    GIT_AUTHOR_EMAIL: 'baton-session@localhost',
    GIT_COMMITTER_NAME: 'Baton',
    GIT_COMMITTER_EMAIL: 'baton@localhost',
  };
}

/**
 * Commits the worktree's work at the end of the turn `record` describes onto the session's chain.
 * Returns the turn commit, or undefined when the turn changed nothing since the last one.
 */
export async function recordTurn(input: {
  root: string;
  worktree: string;
  base: string;
  record: TurnRecord;
}): Promise<{ commit: string; tree: string } | undefined> {
  const limit = { timeoutMs: SNAPSHOT_TIMEOUT_MS };
  const work = await snapshotWork(input.worktree, limit);
  const ref = chainRef(input.record.sessionId);
  const previous = await chainTip(input.root, input.record.sessionId);
  const parent = previous ?? input.base;
  const parentTree = await gitOut(input.root, ['rev-parse', `${parent}^{tree}`], limit);
  if (parentTree === work.tree) return undefined;
  const commit = await gitOut(
    input.root,
    ['commit-tree', work.tree, '-p', parent, '-m', turnMessage(input.record)],
    { ...limit, env: identity(input.record) },
  );
  // Compare-and-swap on the chain: two records of one session never interleave (the service
  // runs them one at a time), and a ref someone moved is not overwritten blindly.
  await git(input.root, ['update-ref', ref, commit, previous ?? ''], limit);
  return { commit, tree: work.tree };
}

/** Every turn commit of a chain (tip back to `base`), with its record. */
export async function chainRecords(
  root: string,
  base: string,
  tip: string,
): Promise<Map<string, TurnRecord>> {
  const out = await gitOut(root, ['log', '--format=%H%x1f%B%x1e', `${base}..${tip}`]);
  const records = new Map<string, TurnRecord>();
  for (const entry of out.split('\x1e')) {
    const [sha, message] = entry.trim().split('\x1f');
    if (sha === undefined || message === undefined) continue;
    const record = recordOf(message);
    if (record !== undefined) records.set(sha, record);
  }
  return records;
}
