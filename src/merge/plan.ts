/**
 * The landing order with the fewest conflicts. Each candidate's work is a snapshot commit (its
 * branch plus uncommitted work, nothing moved); `git merge-tree` answers, without a worktree,
 * which files conflict. Greedy: from the base tip, take next the candidate that merges onto what
 * is landed so far with the fewest conflicting files (ties: the one that conflicts with fewest
 * of the others still waiting, then the given order), and carry the result forward when clean.
 */
import { gitOut } from '../worktrees/index.js';
import { conflictsBetween } from './git.js';

export interface PlanCandidate {
  id: string;
  name: string;
  /** The candidate's whole work as a commit. */
  commit: string;
}

export interface PlanStep {
  id: string;
  name: string;
  /** Files expected to conflict when it merges after the ones before it. */
  conflicts: string[];
  /** Other candidates its work conflicts with, whatever the order. */
  conflictsWith: string[];
}

export async function planOrder(
  repo: string,
  baseTip: string,
  candidates: readonly PlanCandidate[],
): Promise<PlanStep[]> {
  const pairwise = new Map<string, Set<string>>(candidates.map((c) => [c.id, new Set<string>()]));
  for (let i = 0; i < candidates.length; i++) {
    for (let j = i + 1; j < candidates.length; j++) {
      const a = candidates[i]!;
      const b = candidates[j]!;
      if ((await conflictsBetween(repo, a.commit, b.commit)).files.length > 0) {
        pairwise.get(a.id)!.add(b.id);
        pairwise.get(b.id)!.add(a.id);
      }
    }
  }
  const names = new Map(candidates.map((c) => [c.id, c.name]));
  const steps: PlanStep[] = [];
  const waiting = [...candidates];
  let landed = baseTip;
  while (waiting.length > 0) {
    let best: { index: number; files: string[]; tree: string; score: [number, number] } | undefined;
    for (const [index, candidate] of waiting.entries()) {
      const { files, tree } = await conflictsBetween(repo, landed, candidate.commit);
      const others = [...pairwise.get(candidate.id)!].filter((id) => waiting.some((w) => w.id === id)).length;
      const score: [number, number] = [files.length, others];
      if (
        best === undefined ||
        score[0] < best.score[0] ||
        (score[0] === best.score[0] && score[1] < best.score[1])
      )
        best = { index, files, tree, score };
    }
    const chosen = waiting.splice(best!.index, 1)[0]!;
    steps.push({
      id: chosen.id,
      name: chosen.name,
      conflicts: best!.files,
      conflictsWith: [...pairwise.get(chosen.id)!].map((id) => names.get(id) ?? id),
    });
    // A clean merge is carried forward (as a commit nothing points at) for the next comparisons.
    if (best!.files.length === 0) {
      landed = await gitOut(repo, [
        '-c',
        'user.name=Baton',
        '-c',
        'user.email=baton@localhost',
        'commit-tree',
        best!.tree,
        '-p',
        landed,
        '-p',
        chosen.commit,
        '-m',
        `plan: ${chosen.name}`,
      ]);
    }
  }
  return steps;
}
