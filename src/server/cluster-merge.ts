/**
 * Landing another machine's session from here (issue 20, "branches through the remote"). Its
 * machine is asked to hand it over — commit its uncommitted work on its branch, as a local merge
 * does, and push it now — then this machine fetches the pushed branch into its own checkout of
 * the repository and lands it through its own merge queue, onto its own base. A conflict or a
 * failed check goes back to the session as a reply through its machine; a landing retires it
 * there (completed, worktree removed with a snapshot kept).
 *
 * A machine that is down cannot hand over: its session lands as it last pushed it (with the
 * uncommitted work of its last snapshot), and the merge says so.
 */
import { existsSync } from 'node:fs';
import type { SessionView } from '../api/index.js';
import { RemoteCommandTimeoutError } from '../cluster/errors.js';
import { commitSessionWork } from '../merge/git.js';
import { requireMergeable, type MergeSessions } from '../merge/sessions.js';
import { BatonError, errorMessage, InvalidInputError, SessionStateError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionManager } from '../sessions/manager.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { SyncService } from '../sync/index.js';
import { fetchPushedWork, pushedWork } from '../sync/fetch.js';
import { git, type RemoveResult } from '../worktrees/index.js';
import type { RemoteSessions } from './cluster-sessions.js';
import type { ElsewhereWork } from './cluster-work.js';

const log = createLogger('cluster');

/** What the session's machine answers a hand-over with: the commit it pushed to `baton/<name>`. */
export interface Handover {
  commit: string;
}

/** The owner's side: the session's work committed on its branch and pushed now, whatever its repository's push setting. */
export async function handOver(session: SessionWithProject, manager: SessionManager, sync: SyncService): Promise<Handover> {
  requireMergeable(session, manager);
  if (existsSync(session.worktree)) await commitSessionWork({ worktree: session.worktree, branch: session.branch, name: session.name });
  const pushed = await sync.pushNow(session.id, undefined, false);
  if (pushed.failure !== null || pushed.commit === null) {
    throw new SessionStateError(`${session.name}'s work could not be pushed to ${pushed.remote} for landing elsewhere: ${pushed.failure?.reason ?? 'nothing was pushed'}.`, { reason: 'push_failed' });
  }
  return { commit: pushed.commit };
}

interface Brought {
  member: SessionWithProject;
  view: SessionView;
}

/** The merge queue's sessions: this machine's, and the other machines' sessions brought here for a merge. */
export class WorkspaceMergeSessions implements MergeSessions {
  private readonly brought = new Map<string, Brought>();
  private readonly refs = new Map<string, string>();

  constructor(
    private readonly manager: SessionManager,
    private readonly elsewhere: ElsewhereWork,
    private readonly remote: () => RemoteSessions | undefined,
  ) {}

  /** Brings every one of `refs` that is another machine's session here; returns what the user should know of how. */
  async prepare(refs: readonly string[], cwd: string | undefined): Promise<string[]> {
    const remote = this.remote();
    if (remote === undefined) return [];
    const notes: string[] = [];
    for (const ref of refs) {
      if (this.isLocal(ref, cwd)) continue;
      const view = remote.find(ref);
      if (view === undefined) continue; // resolve() says it is not found
      const note = await this.bring(remote, view, cwd);
      this.refs.set(ref, view.id);
      if (note !== undefined) notes.push(note);
    }
    return notes;
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

  /** A brought session with its state as its machine says now (it may have been started again meanwhile). */
  get(id: string): SessionWithProject | undefined {
    const local = this.manager.get(id);
    if (local !== undefined) return local;
    const brought = this.brought.get(id);
    if (brought === undefined) return undefined;
    const now = this.remote()?.find(id);
    return now === undefined ? { ...brought.member, removed_at: brought.member.removed_at ?? new Date().toISOString() } : { ...brought.member, state: now.state };
  }

  list(): SessionWithProject[] {
    return this.manager.list();
  }

  async reply(ref: string, text: string): Promise<SessionWithProject> {
    const brought = this.brought.get(ref);
    if (brought === undefined) return this.manager.reply(ref, text);
    const remote = this.need();
    // The report names the branch brought here; the agent knows its own, and where the merge ran.
    const told = `${text.replaceAll(brought.member.branch, brought.view.branch)}\n(The merge ran on machine ${remote.machine}, onto its ${brought.member.base_ref}.)`;
    await remote.send(brought.view, { kind: 'reply', sessionId: brought.view.id, text: told });
    return brought.member;
  }

  /** A landed session of another machine is retired there: completed and removed, a snapshot kept of anything left. */
  async done(ref: string): Promise<SessionWithProject> {
    const brought = this.brought.get(ref);
    if (brought === undefined) return this.manager.done(ref);
    await this.need()
      .send(brought.view, { kind: 'retire', sessionId: brought.view.id })
      .catch((error: unknown) => log.warn('a landed session was not retired on its machine', { session: brought.member.name, machine: brought.view.machine, error: errorMessage(error) }));
    return brought.member;
  }

  /** Its worktree is its machine's (retired by `done`); this machine only forgets it. */
  async remove(ref: string): Promise<{ session: SessionWithProject; result: RemoveResult }> {
    const brought = this.brought.get(ref);
    if (brought === undefined) return this.manager.remove(ref);
    this.brought.delete(ref);
    for (const [key, id] of this.refs) if (id === ref) this.refs.delete(key);
    return { session: brought.member, result: { branchDeleted: false } };
  }

  private isLocal(ref: string, cwd: string | undefined): boolean {
    try {
      this.manager.resolve(ref, cwd);
      return true;
    } catch (error) {
      if (error instanceof BatonError && error.code === 'not_found') return false;
      throw error;
    }
  }

  private need(): RemoteSessions {
    const remote = this.remote();
    if (remote === undefined) throw new SessionStateError('This machine left the shared workspace; the other machines cannot be reached.');
    return remote;
  }

  /** Asks its machine to hand it over (or lands its last push when the machine is away), fetches it, and gives it a local branch. */
  private async bring(remote: RemoteSessions, view: SessionView, cwd: string | undefined): Promise<string | undefined> {
    const machine = view.machine ?? '?';
    if (view.repo === undefined) {
      throw new InvalidInputError(`${view.name} runs on ${machine} in a repository without a sync remote, so its work cannot reach this machine; merge it on ${machine}.`, { reason: 'no_remote' });
    }
    const project = await this.elsewhere.projectOf(view.repo, cwd);
    if (project === undefined) {
      throw new InvalidInputError(`This machine has no checkout of ${view.repo}, where ${view.name} works (on ${machine}); run the merge from a checkout of it, or on ${machine}.`, { reason: 'no_checkout', repo: view.repo });
    }
    const member = this.elsewhere.member(view, project);
    requireMergeable(member, this);
    let handed: Handover | undefined;
    let note: string | undefined;
    const away = remote.away(machine);
    if (away === undefined) {
      try {
        handed = (await remote.send(view, { kind: 'handover', sessionId: view.id })) as unknown as Handover;
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
    if (work === undefined) {
      throw new SessionStateError(`${view.name}'s branch baton/${view.name} is not on the remote${note === undefined ? '' : ` and ${note.split(',')[0] ?? machine}`}: there is nothing to land from here.`, { reason: 'not_pushed' });
    }
    if (handed !== undefined && work.head !== handed.commit) {
      throw new SessionStateError(`The remote's baton/${view.name} moved (it is at ${work.head.slice(0, 12)}, ${machine} pushed ${handed.commit.slice(0, 12)}); try the merge again.`, { reason: 'moved' });
    }
    // Without a hand-over, the last snapshot carries the uncommitted work as a commit on the branch.
    const tip = handed === undefined && work.snapshot !== null ? work.snapshot : work.head;
    if (tip !== work.head && note !== undefined) note += ' (with the uncommitted work of its last push)';
    const branch = `baton-elsewhere/${machine}/${view.name}`;
    await git(project.root, ['update-ref', `refs/heads/${branch}`, tip]);
    this.brought.set(view.id, { member: { ...member, branch }, view });
    if (note !== undefined) log.warn('landing another machine\'s session from its last push', { session: view.name, machine, note });
    return note === undefined ? undefined : `${note}.`;
  }
}
