/**
 * Landing another machine's session from here (decision 143,
 * "Another machine's session lands here"). Its machine is asked to hand it over — commit its uncommitted work on its branch, as a
 * local merge does, and push it now — then this machine fetches the pushed branch into its own
 * checkout of the repository and lands it through its own merge queue, onto its own base. A
 * conflict or a failed check goes back to the session as a reply through its machine; a landing
 * retires it there (completed, worktree removed with a snapshot kept), but only if it is still
 * exactly what was handed over.
 *
 * A machine that is down cannot hand over: its session lands as it last pushed it (with the
 * uncommitted work of its last snapshot), when that push is known to be this session's; it is
 * not retired, and the merge says so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionView } from '../../api/index.js';
import { RemoteCommandTimeoutError } from '../errors.js';
import { branchTip, commitSessionWork, type MergeSessions, requireMergeable } from '../../merge/index.js';
import { BatonError, errorMessage, InvalidInputError, SessionStateError } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import type { SessionManager } from '../../sessions/index.js';
import type { SessionWithProject } from '../../store/sessions.js';
import { fetchPushedWork, pushedWork, type SyncService } from '../../sync/index.js';
import { git, type RemoveResult } from '../../worktrees/index.js';
import type { RemoteSessions } from './sessions.js';
import type { ElsewhereWork } from './work.js';

const log = createLogger('cluster');
/** A hand-over commits and pushes: it may take as long as a push (the command is still withdrawn if not taken in time). */
const HANDOVER_ANSWER_MS = 150_000;

/** What the session's machine answers a hand-over with: the commit it pushed to `baton/<name>`, and its last event then. */
export interface Handover {
  commit: string;
  lastSeq: number;
}

/** The owner's side: the session's work committed on its branch and pushed now, whatever its repository's push setting. */
export async function handOver(
  session: SessionWithProject,
  manager: SessionManager,
  sync: SyncService,
): Promise<Handover> {
  requireMergeable(session, manager);
  // Under the session's hold (decision 403), as a local merge commits it: a keep-fresh rebase
  // running ends first. The push below takes the hold itself for its read, so it is not held here.
  await manager.whileHeld(session.id, async (now) => {
    requireMergeable(now, manager);
    if (existsSync(now.worktree))
      await commitSessionWork({
        worktree: now.worktree,
        branch: now.branch,
        name: now.name,
        prompt: now.prompt,
      });
  });
  const pushed = await sync.pushNow(session.id, undefined, false);
  if (pushed.failure !== null || pushed.commit === null) {
    throw new SessionStateError(
      `${session.name}'s work could not be pushed to ${pushed.remote} for landing elsewhere: ${pushed.failure?.reason ?? 'nothing was pushed'}.`,
      { reason: 'push_failed' },
    );
  }
  return { commit: pushed.commit, lastSeq: manager.get(session.id)?.last_seq ?? session.last_seq };
}

interface Brought {
  member: SessionWithProject;
  view: SessionView;
  /** What its machine handed over; undefined when it was landed from its last push (the machine away). */
  handed: Handover | undefined;
  /** The notes of the merge it is in: what is learnt later (a retire refused) is said with its result. */
  notes: string[];
}

/** The merge queue's sessions: this machine's, and the other machines' sessions brought here for a merge. */
export class WorkspaceMergeSessions implements MergeSessions {
  private readonly brought = new Map<string, Brought>();
  private readonly refs = new Map<string, string>();

  constructor(
    private readonly manager: SessionManager,
    private readonly elsewhereWork: ElsewhereWork,
    private readonly remote: () => RemoteSessions | undefined,
    private readonly home: string,
    /** The last push of a session another machine announced (the relayed `sync.pushed`), to know a branch on the remote is that session's. */
    private readonly lastPush: (sessionId: string) => string | undefined,
    /** The other machines' sessions with their pushed work, read as the radar reads them (fetched only when something changed). */
    private readonly pushed: () => Promise<
      readonly { session: SessionWithProject; machine: string; commit: string }[]
    > = async () => [],
  ) {}

  /** The other machines' sessions in the checkout at `root`, with the commit of their pushed work (for the landing plan). */
  async elsewhere(
    root: string,
  ): Promise<{ session: SessionWithProject; machine: string; commit: string | undefined }[]> {
    // The checkout becomes a project here if it was none (only other machines work in it), so its sessions are members.
    const repo = await this.elsewhereWork.keys.of(root);
    if (repo === null || (await this.elsewhereWork.projectOf(repo, root)) === undefined) return [];
    const [members, pushed] = await Promise.all([this.elsewhereWork.members(), this.pushed()]);
    const commits = new Map(pushed.map((p) => [p.session.id, p.commit]));
    return members
      .filter((m) => m.session.project_root === root)
      .map((m) => ({
        session: m.session,
        machine: m.view.machine ?? '?',
        commit: commits.get(m.session.id),
      }));
  }

  /** Brings every one of `refs` that is another machine's session here; returns what the user should know of how, and which it brought. */
  async prepare(
    refs: readonly string[],
    cwd: string | undefined,
  ): Promise<{ notes: string[]; brought: string[] }> {
    const remote = this.remote();
    const notes: string[] = [];
    const brought: string[] = [];
    for (const ref of refs) {
      const local = this.localSession(ref, cwd);
      if (local !== undefined) {
        this.refuseClone(local);
        continue;
      }
      const view = remote?.find(ref);
      if (remote === undefined || view === undefined) continue; // resolve() says it is not found
      if (this.brought.has(view.id))
        throw new SessionStateError(
          `${view.name} (on ${view.machine ?? '?'}) is already being merged here; wait for it.`,
          { reason: 'merging' },
        );
      try {
        await this.bring(remote, view, cwd, notes);
      } catch (error) {
        await this.letGo(brought);
        throw error;
      }
      brought.push(view.id);
      this.refs.set(ref, view.id);
    }
    return { notes, brought };
  }

  /** Forgets the sessions brought for a merge that is over (or was refused), and the branches made for them. */
  async letGo(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const brought = this.brought.get(id);
      if (brought === undefined) continue;
      this.forget(id);
      // Rebuilt from the fetched refs whenever it is needed again.
      await git(brought.member.project_root, [
        'update-ref',
        '-d',
        `refs/heads/${brought.member.branch}`,
      ]).catch(() => undefined);
    }
  }

  resolve(ref: string, cwd?: string): SessionWithProject {
    try {
      return this.manager.resolve(ref, cwd);
    } catch (error) {
      const id = this.refs.get(ref) ?? (this.brought.has(ref) ? ref : undefined);
      const brought = id === undefined ? undefined : this.brought.get(id);
      if (brought === undefined) throw error;
      return this.get(brought.member.id) ?? brought.member;
    }
  }

  /** A brought session with its state as its machine says now; one that ran again since its hand-over may not land what was handed. */
  get(id: string): SessionWithProject | undefined {
    const local = this.manager.get(id);
    if (local !== undefined) return local;
    const brought = this.brought.get(id);
    if (brought === undefined) return undefined;
    const now = this.remote()?.find(id);
    if (now === undefined)
      return { ...brought.member, removed_at: brought.member.removed_at ?? new Date().toISOString() };
    if (brought.handed !== undefined && now.lastSeq > brought.handed.lastSeq) {
      throw new SessionStateError(
        `${now.name} on ${now.machine ?? '?'} ran again since it was handed over for this merge; merge it again when it is ready.`,
        { reason: 'changed' },
      );
    }
    return { ...brought.member, state: now.state };
  }

  list(): SessionWithProject[] {
    return this.manager.list();
  }

  ownBranch(id: string): string | undefined {
    return this.brought.get(id)?.view.branch;
  }

  async reply(ref: string, text: string): Promise<SessionWithProject> {
    const brought = this.brought.get(ref);
    if (brought === undefined) return this.manager.reply(ref, text);
    const remote = this.need();
    // The report names the branch brought here; the agent knows its own, and where the merge ran.
    const base = brought.member.base_ref;
    const tip = await branchTip(brought.member.project_root, base).catch(() => undefined);
    const where = `(The merge ran on machine ${remote.machine}, onto its ${base}${tip === undefined ? '' : ` at ${tip.slice(0, 12)}`}: fetch that from the remote once it is pushed there, to merge it into your branch.)`;
    await remote.send(brought.view, {
      kind: 'reply',
      sessionId: brought.view.id,
      text: `${text.replaceAll(brought.member.branch, brought.view.branch)}\n${where}`,
    });
    return brought.member;
  }

  /** A landed session of another machine is retired there, if it is still what was handed over; otherwise it is kept, and the merge says why. */
  async done(ref: string): Promise<SessionWithProject> {
    const brought = this.brought.get(ref);
    if (brought === undefined) return this.manager.done(ref);
    const { view, handed, member } = brought;
    const machine = view.machine ?? '?';
    if (handed === undefined) {
      brought.notes.push(
        `${member.name} is still listed on ${machine}, which did not hand it over: remove it there once it is back (\`baton rm ${member.name}\`).`,
      );
      return member;
    }
    try {
      await this.need().send(view, {
        kind: 'retire',
        sessionId: view.id,
        commit: handed.commit,
        lastSeq: handed.lastSeq,
      });
    } catch (error) {
      log.warn('a landed session was not retired on its machine', {
        session: member.name,
        machine,
        error: errorMessage(error),
      });
      brought.notes.push(`${member.name} is kept on ${machine}: ${errorMessage(error)}`);
    }
    return member;
  }

  /** Its worktree is its machine's (retired by `done`); this machine only forgets it. */
  async remove(ref: string): Promise<{ session: SessionWithProject; result: RemoveResult }> {
    const brought = this.brought.get(ref);
    if (brought === undefined) return this.manager.remove(ref);
    return { session: brought.member, result: { branchDeleted: false } };
  }

  /** A session brought from another machine is held there by its hand-over; only this machine's are held here. */
  whileHeld<T>(id: string, work: () => Promise<T>): Promise<T> {
    if (this.brought.has(id)) return work();
    return this.manager.whileHeld(id, work);
  }

  private forget(id: string): void {
    this.brought.delete(id);
    for (const [key, value] of this.refs) if (value === id) this.refs.delete(key);
  }

  private localSession(ref: string, cwd: string | undefined): SessionWithProject | undefined {
    try {
      return this.manager.resolve(ref, cwd);
    } catch (error) {
      if (error instanceof BatonError && error.code === 'not_found') return undefined;
      throw error;
    }
  }

  /** A session placed here from another machine works in Baton's own clone, whose base branch nobody looks at: it lands from a checkout. */
  private refuseClone(session: SessionWithProject): void {
    const clones = join(this.home, 'clones');
    if (!session.project_root.startsWith(`${clones}/`)) return;
    throw new InvalidInputError(
      `${session.name} works in Baton's clone of its repository on this machine (${session.project_root}), placed here from another machine: landing it here would move a branch nobody looks at. Merge it from a checkout of the repository (on any machine), where it lands on that checkout's base.`,
      { reason: 'placed_clone' },
    );
  }

  private need(): RemoteSessions {
    const remote = this.remote();
    if (remote === undefined)
      throw new SessionStateError(
        'This machine left the shared workspace; the other machines cannot be reached.',
      );
    return remote;
  }

  /** Asks its machine to hand it over (or lands its last push when the machine is away), fetches it, and gives it a local branch. */
  private async bring(
    remote: RemoteSessions,
    view: SessionView,
    cwd: string | undefined,
    notes: string[],
  ): Promise<void> {
    const machine = view.machine ?? '?';
    if (view.repo === undefined) {
      throw new InvalidInputError(
        `${view.name} runs on ${machine} in a repository without a sync remote, so its work cannot reach this machine; merge it on ${machine}.`,
        { reason: 'no_remote' },
      );
    }
    const project = await this.elsewhereWork.projectOf(view.repo, cwd);
    if (project === undefined) {
      throw new InvalidInputError(
        `This machine has no checkout of ${view.repo}, where ${view.name} works (on ${machine}); run the merge from a checkout of it, or on ${machine}.`,
        { reason: 'no_checkout', repo: view.repo },
      );
    }
    const member = this.elsewhereWork.member(view, project);
    requireMergeable(member, this);
    let handed: Handover | undefined;
    let note: string | undefined;
    const away = remote.away(machine);
    if (away === undefined) {
      try {
        handed = (await remote.send(
          view,
          { kind: 'handover', sessionId: view.id },
          { answerMs: HANDOVER_ANSWER_MS },
        )) as unknown as Handover;
      } catch (error) {
        // Not taken in time: the machine is down, and its last push is all there is.
        if (!(error instanceof RemoteCommandTimeoutError) || error.taken) throw error;
        note = `${machine} did not answer, so ${view.name} lands as it last pushed it`;
      }
    } else {
      note = `${machine} is away (${away}), so ${view.name} lands as it last pushed it`;
    }
    await fetchPushedWork(project.root);
    const work = await pushedWork(project.root, { id: view.id, name: view.name });
    if (work === undefined)
      throw new SessionStateError(
        `${view.name}'s branch baton/${view.name} is not on the remote: there is nothing to land from here.`,
        { reason: 'not_pushed' },
      );
    if (handed !== undefined && work.head !== handed.commit) {
      throw new SessionStateError(
        `The remote's baton/${view.name} moved (it is at ${work.head.slice(0, 12)}, ${machine} pushed ${handed.commit.slice(0, 12)}); try the merge again.`,
        { reason: 'moved' },
      );
    }
    // Names are unique per machine only: without a hand-over, the branch must be the one this session was heard pushing.
    if (handed === undefined && this.lastPush(view.id) !== work.head) {
      throw new SessionStateError(
        `The remote's baton/${view.name} (at ${work.head.slice(0, 12)}) is not known to be the last push of ${view.name} on ${machine}${this.lastPush(view.id) === undefined ? ' (this machine heard of no push of it)' : ''}; land it when ${machine} is back.`,
        { reason: 'unknown_push' },
      );
    }
    // Without a hand-over, the last snapshot carries the uncommitted work as a commit on the branch.
    const tip = handed === undefined && work.snapshot !== null ? work.snapshot : work.head;
    if (tip !== work.head && note !== undefined) note += ' (with the uncommitted work of its last push)';
    const branch = `baton-elsewhere/${machine}/${view.name}`;
    await git(project.root, ['update-ref', `refs/heads/${branch}`, tip]);
    this.brought.set(view.id, { member: { ...member, branch }, view, handed, notes });
    if (note !== undefined) {
      log.warn("landing another machine's session from its last push", { session: view.name, machine, note });
      notes.push(`${note}.`);
    }
  }
}
