/** `baton merge --plan`: the ready sessions of a repository, in the order that lands them with the fewest conflicts. */
import { existsSync } from 'node:fs';
import type { MergePlanView } from '../api/merge.js';
import { loadRepoConfig } from '../projects/index.js';
import { InvalidInputError } from '../shared/errors.js';
import { findRepository, snapshotCommit, snapshotWork } from '../worktrees/index.js';
import { branchTip, isAncestor } from './git.js';
import { planOrder, type PlanCandidate } from './plan.js';
import type { MergeSessions } from './sessions.js';
import type { SessionWithProject } from '../store/sessions.js';

/** Sessions whose agent is done with the work: finished its turn and waiting for review, or marked done. */
const READY = new Set(['ready_for_review', 'completed']);

export async function mergePlan(
  sessions: MergeSessions,
  where: { cwd?: string | undefined; project?: string | undefined },
): Promise<MergePlanView> {
  const root =
    where.project !== undefined
      ? projectRoot(sessions, where.project)
      : (await findRepository(where.cwd ?? process.cwd())).root;
  const repo = await findRepository(root);
  const base = loadRepoConfig(root).merge?.base ?? repo.branch;
  if (base === 'HEAD')
    throw new InvalidInputError(
      `${root} is on a detached HEAD; check out the branch to land on, or set "merge": {"base": "<branch>"} in .baton/config.json.`,
    );
  const baseCommit = await branchTip(root, base);
  if (baseCommit === undefined)
    throw new InvalidInputError(`The base branch ${base} does not exist in ${root}.`);
  const candidates: PlanCandidate[] = [];
  const skipped: MergePlanView['skipped'] = [];
  const mine = sessions.list().filter((s) => s.project_root === root);
  for (const session of mine) {
    if (!READY.has(session.state)) {
      skipped.push({ name: session.name, reason: `${session.state.replace(/_/g, ' ')}` });
      continue;
    }
    if ((loadRepoConfig(root).merge?.base ?? session.base_ref) !== base) {
      skipped.push({ name: session.name, reason: `lands on ${session.base_ref}, not ${base}` });
      continue;
    }
    const commit = await workCommit(session);
    if (commit === undefined || (await isAncestor(root, commit, baseCommit))) {
      skipped.push({ name: session.name, reason: 'nothing to merge' });
      continue;
    }
    candidates.push({ id: session.id, name: session.name, commit });
  }
  // Other machines' sessions in this checkout, from the work they pushed: a merge asks their machine for it anew.
  for (const { session, machine, commit } of await sessions.elsewhere(root)) {
    const name = `${session.name} (on ${machine})`;
    if (!READY.has(session.state)) skipped.push({ name, reason: session.state.replace(/_/g, ' ') });
    else if ((loadRepoConfig(root).merge?.base ?? session.base_ref) !== base)
      skipped.push({ name, reason: `lands on ${session.base_ref}, not ${base}` });
    else if (commit === undefined)
      skipped.push({
        name,
        reason: `its work is not on the remote yet (\`baton merge ${session.name}\` has ${machine} push it)`,
      });
    else if (await isAncestor(root, commit, baseCommit)) skipped.push({ name, reason: 'nothing to merge' });
    else candidates.push({ id: session.id, name, commit });
  }
  const steps = await planOrder(root, baseCommit, candidates);
  return {
    project: mine[0]?.project_name ?? root,
    base,
    baseCommit,
    steps: steps.map((s) => ({
      sessionId: s.id,
      name: s.name,
      conflicts: s.conflicts,
      conflictsWith: s.conflictsWith,
    })),
    skipped,
  };
}

/** The session's work as it is now, uncommitted included, as a commit nothing points at: a plan moves no branch. */
export async function workCommit(session: SessionWithProject): Promise<string | undefined> {
  return existsSync(session.worktree)
    ? snapshotCommit(session.worktree, await snapshotWork(session.worktree), `plan: ${session.name}`)
    : branchTip(session.project_root, session.branch);
}

/** `members` in the order that lands them with the fewest conflicts onto `baseTip`. */
export async function plannedOrder(
  members: SessionWithProject[],
  baseTip: string,
): Promise<SessionWithProject[]> {
  const candidates: PlanCandidate[] = [];
  for (const member of members) {
    const commit = await workCommit(member);
    if (commit !== undefined) candidates.push({ id: member.id, name: member.name, commit });
  }
  const steps = await planOrder(members[0]!.project_root, baseTip, candidates);
  return steps.map((step) => members.find((m) => m.id === step.id)!);
}

function projectRoot(sessions: MergeSessions, project: string): string {
  const found = sessions.list().find((s) => s.project_root === project || s.project_name === project);
  if (found === undefined) throw new InvalidInputError(`No project "${project}" with live sessions.`);
  return found.project_root;
}
