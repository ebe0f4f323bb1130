/** What the merge domain needs of the sessions domain, and which sessions may land. */
import type { RemoveResult } from '../worktrees/index.js';
import { loadRepoConfig } from '../projects/index.js';
import { InvalidInputError, SessionStateError } from '../shared/errors.js';
import { ACTIVE_STATES } from '../sessions/index.js';
import type { SessionWithProject } from '../store/sessions.js';

/** This machine's sessions, as far as landing work goes (the session manager has all of it). */
export interface SessionsHere {
  resolve(ref: string, cwd?: string): SessionWithProject;
  get(id: string): SessionWithProject | undefined;
  list(): SessionWithProject[];
  reply(ref: string, text: string): Promise<SessionWithProject>;
  done(ref: string): Promise<SessionWithProject>;
  remove(ref: string): Promise<{ session: SessionWithProject; result: RemoveResult }>;
  /**
   * Runs `work` while no other command of the session's own runs (keep-fresh's rebase, a reply):
   * one already running ends first, one asked meanwhile waits for `work` to end.
   */
  whileHeld<T>(id: string, work: () => Promise<T>): Promise<T>;
}

/**
 * The sessions a merge lands, wherever they run: the one seam between the merge domain and the
 * other machines of a shared workspace (decision 320, "The merge queue and the session routes see
 * other machines through the peers port"). The supervisor hands the merge queue the peers port's
 * `merges`: in a shared workspace src/cluster/peers/merge.ts, on one machine `onlyHere` below, so
 * the merge code never asks whether there are other machines.
 */
export interface MergeSessions extends SessionsHere {
  /**
   * Makes `refs` resolvable before a merge is queued: another machine's session is brought here.
   * Answers what the merge's result should tell of how (more may be added to `notes` until the
   * result is made), and the ids it brought.
   */
  prepare(refs: readonly string[], cwd: string | undefined): Promise<{ notes: string[]; brought: string[] }>;
  /** The merge of these sessions is over (or was refused): what `prepare` brought for it is let go. */
  letGo(ids: readonly string[]): Promise<void>;
  /**
   * Other machines' sessions working in the checkout at `root`, for the landing plan: each as a
   * session of this checkout, with its machine and the commit of its pushed work (none pushed: undefined).
   */
  elsewhere(
    root: string,
  ): Promise<{ session: SessionWithProject; machine: string; commit: string | undefined }[]>;
  /** The branch a session brought from another machine is known by there (its pull request's head); undefined for this machine's. */
  ownBranch(id: string): string | undefined;
}

/** One machine's merges: its own sessions, nothing to bring, no other machine's work in the plan. */
export function onlyHere(sessions: SessionsHere): MergeSessions {
  return {
    resolve: (ref, cwd) => sessions.resolve(ref, cwd),
    get: (id) => sessions.get(id),
    list: () => sessions.list(),
    reply: (ref, text) => sessions.reply(ref, text),
    done: (ref) => sessions.done(ref),
    remove: (ref) => sessions.remove(ref),
    whileHeld: (id, work) => sessions.whileHeld(id, work),
    prepare: () => Promise.resolve({ notes: [], brought: [] }),
    letGo: () => Promise.resolve(),
    elsewhere: () => Promise.resolve([]),
    ownBranch: () => undefined,
  };
}

/**
 * A session whose agent is mid-turn (or about to start) is still changing its work: landing it
 * would take half of a change. Ready for review, completed, stopped and failed sessions may land.
 */
export function requireMergeable(session: SessionWithProject, sessions: SessionsHere): void {
  const current = sessions.get(session.id) ?? session;
  if (current.removed_at !== null)
    throw new SessionStateError(`${current.name} was removed; there is nothing left to merge.`);
  if (current.state === 'queued' || ACTIVE_STATES.includes(current.state)) {
    throw new SessionStateError(
      `${current.name} is ${current.state.replace(/_/g, ' ')}: its agent is still changing the work. Merge it when it is ready for review, or stop it first (\`baton stop ${current.name}\`).`,
      { reason: 'session_running', state: current.state },
    );
  }
}

/**
 * Runs `work` with every member held (`whileHeld`), taken in one order so two merges sharing a
 * member cannot each wait on the other: the merge snapshots and lands branches no rebase moves
 * meanwhile (decision 401).
 */
export function whileAllHeld<T>(
  sessions: SessionsHere,
  ids: readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  const [first, ...rest] = [...new Set(ids)].sort();
  if (first === undefined) return work();
  return sessions.whileHeld(first, () => whileAllHeld(sessions, rest, work));
}

/** The branch the members land on: the repository's `merge.base`, else their own base branch (all the same). */
export function baseOf(members: SessionWithProject[]): string {
  const config = loadRepoConfig(members[0]!.project_root);
  if (config.merge?.base !== undefined) return config.merge.base;
  const bases = [...new Set(members.map((m) => m.base_ref))];
  if (bases.length > 1) {
    throw new InvalidInputError(
      `These sessions started from different branches (${bases.join(', ')}); merge them separately, or set "merge": {"base": "<branch>"} in .baton/config.json.`,
    );
  }
  const base = bases[0]!;
  if (base === 'HEAD') {
    throw new InvalidInputError(
      `${members[0]!.name} started from a detached HEAD, so it has no base branch to land on; set "merge": {"base": "<branch>"} in .baton/config.json.`,
    );
  }
  return base;
}
