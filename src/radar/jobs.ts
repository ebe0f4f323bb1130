/**
 * A project's comparisons for one pass: one job per pair of sessions with at least one of this
 * machine's (a pair of two other machines' sessions is their own radars' business), and one per
 * session of this machine whose base branch has moved since it started (another machine's session
 * is compared with its base by its own machine).
 */
import type { ConflictSessionSide, ConflictSide } from '../api/conflicts.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { WorkSnapshot } from '../worktrees/index.js';
import type { Comparer, PairResult, Side } from './compare.js';
import type { GitRunner } from './git-runner.js';

const log = createLogger('radar');

export interface Tracked {
  session: SessionWithProject;
  snapshot: WorkSnapshot;
  /** Another machine's session: its machine's name, and a commit whose tree is its snapshot's. */
  machine?: string;
  commit?: string;
}

export interface Job {
  key: string;
  run: () => Promise<void>;
}

export type Outcome = { result: PairResult; cached: boolean };
export type Record = (key: string, a: Tracked, b: ConflictSide, outcome: Outcome) => void;

export async function projectJobs(
  git: GitRunner,
  comparer: Comparer,
  root: string,
  members: Tracked[],
  record: Record,
  /** The branch tips, when the pass asked for them already (beside its snapshots: decision 449). */
  asked?: Promise<Map<string, string>>,
): Promise<Job[]> {
  const jobs: Job[] = [];
  const sorted = [...members].sort((x, y) => x.session.id.localeCompare(y.session.id));
  let tips: Map<string, string> | undefined;
  try {
    tips = await (asked ?? baseTips(git, root));
  } catch (error) {
    log.warn('could not read the branch tips; bases are not compared this pass', {
      project: root,
      error: errorMessage(error),
    });
  }
  const tipOf = (t: Tracked): string | undefined =>
    tips === undefined ? undefined : movingBase(t.session.base_ref, tips);
  // A session's own work starts at its fork point: what landed on its base before it is nobody's change.
  const fork = (t: Tracked): Promise<string> =>
    comparer.forkPoint(root, { head: t.snapshot.head, baseCommit: t.session.base_commit, tip: tipOf(t) });
  const workKey = (t: Tracked): string => `${t.snapshot.head}:${t.snapshot.tree}`;
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const [a, b] = [sorted[i] as Tracked, sorted[j] as Tracked];
      if (a.machine !== undefined && b.machine !== undefined) continue;
      const key = `${a.session.id}:${b.session.id}`;
      const run = async (): Promise<void> => {
        const [forkA, forkB] = await Promise.all([fork(a), fork(b)]);
        const pairKey = `${workKey(a)}:${forkA}|${workKey(b)}:${forkB}`;
        const outcome = await comparer.pair(pairKey, async () => {
          if (forkA !== forkB)
            return comparer.compareForked(root, { ...side(a), fork: forkA }, { ...side(b), fork: forkB });
          // The same fork: their heads' merge base (later than the fork when one session's branch
          // holds the other's commits, which are then nobody's change either).
          const base = await comparer.mergeBase(
            root,
            { head: a.snapshot.head, baseCommit: forkA },
            { head: b.snapshot.head, baseCommit: forkB },
          );
          return comparer.compare(root, base, side(a), side(b));
        });
        record(key, a, sessionSide(b), outcome);
      };
      jobs.push({ key, run });
    }
  }
  if (tips === undefined) return jobs;
  for (const t of sorted.filter((m) => m.machine === undefined)) {
    const tip = tipOf(t);
    if (tip === undefined || tip === t.session.base_commit) continue;
    const key = `${t.session.id}:base`;
    const run = async (): Promise<void> => {
      // The fork point, not the session's base commit: once its commits have landed on the base
      // branch they are behind it and no longer count against it.
      const outcome = await comparer.pair(`${workKey(t)}|${tip}`, async () => {
        const base = await fork(t);
        return comparer.compare(root, base, side(t), { head: tip, tree: tip });
      });
      record(key, t, { kind: 'base', ref: t.session.base_ref, tip }, outcome);
    };
    jobs.push({ key, run });
  }
  return jobs;
}

/** Every branch tip of the repository (local and remote-tracking), in one git call per pass. */
export async function baseTips(git: GitRunner, root: string): Promise<Map<string, string>> {
  const out = await git.out(root, [
    'for-each-ref',
    '--format=%(objectname) %(refname)',
    'refs/heads',
    'refs/remotes',
  ]);
  const tips = new Map<string, string>();
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) tips.set(line.slice(space + 1), line.slice(0, space));
  }
  return tips;
}

/**
 * The tip of a session's base when its base is a branch (local, or remote-tracking); undefined
 * for a detached base (HEAD, a tag, a commit), which cannot move under the session.
 */
export function movingBase(baseRef: string, tips: Map<string, string>): string | undefined {
  if (baseRef === 'HEAD') return undefined;
  const name = baseRef.replace(/^refs\/heads\//, '');
  return (
    tips.get(`refs/heads/${name}`) ?? tips.get(`refs/remotes/${baseRef.replace(/^refs\/remotes\//, '')}`)
  );
}

function side(t: Tracked): Side {
  // Another machine's work has no worktree here: its pushed commit stands for it.
  if (t.machine !== undefined)
    return {
      head: t.snapshot.head,
      tree: t.snapshot.tree,
      ...(t.commit === undefined ? {} : { commit: t.commit }),
    };
  return {
    head: t.snapshot.head,
    tree: t.snapshot.tree,
    worktree: t.session.worktree,
    ...(t.snapshot.headTree === undefined ? {} : { headTree: t.snapshot.headTree }),
  };
}

export function sessionSide(t: Tracked): ConflictSessionSide {
  const s = t.session;
  return {
    kind: 'session',
    sessionId: s.id,
    name: s.name,
    branch: s.branch,
    ...(t.machine === undefined ? {} : { machine: t.machine }),
  };
}
